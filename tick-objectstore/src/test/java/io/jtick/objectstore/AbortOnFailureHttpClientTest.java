package io.jtick.objectstore;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An upload whose connection the server resets mid-body fails, and its socket is closed when the call
 * returns, not when the garbage collector finds the JDK connection (the SDK's JDK client alone leaves it open).
 */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(ignoreThreads = "Keep-Alive-Timer")
class AbortOnFailureHttpClientTest {
    private static final int BODY = 64 << 20;   // far more than loopback's socket buffers: the reset comes mid-write

    @Test
    void shouldCloseTheSocketOfAnUploadResetMidBody() throws Exception {
        assumeTrue(Files.isDirectory(Paths.get("/proc/self/fd")), "counts its sockets in /proc/self/fd (Linux)");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             SdkHttpClient client = new AbortOnFailureHttpClient(UrlConnectionHttpClient.builder()
                 .connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofSeconds(20)).build())) {
            final CompletableFuture<Void> reset = CompletableFuture.runAsync(() -> resetAfterHeaders(server));
            final long before = sockets();
            final SdkHttpFullRequest put = SdkHttpFullRequest.builder().method(SdkHttpMethod.PUT)
                .uri(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/bucket/key"))
                .putHeader("Content-Length", Integer.toString(BODY)).build();
            final ContentStreamProvider body = () -> new ByteArrayInputStream(new byte[BODY]);
            assertThatThrownBy(() -> client.prepareRequest(HttpExecuteRequest.builder().request(put).contentStreamProvider(body).build())
                .call()).isInstanceOf(IOException.class);
            reset.get(20, TimeUnit.SECONDS);
            assertThat(sockets()).as("the client's socket, closed as the call failed").isEqualTo(before);
        }
    }

    /** Accepts one connection, reads a little of the request, and resets it (linger 0: RST, not FIN). */
    private static void resetAfterHeaders(final ServerSocket server) {
        try (Socket s = server.accept()) {
            final InputStream in = s.getInputStream();
            in.readNBytes(64 * 1024);
            s.setSoLinger(true, 0);
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Open socket descriptors of this process. */
    private static long sockets() throws IOException {
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().startsWith("socket:");
                } catch (final IOException gone) {
                    return false;   // closed while listing (the listing's own descriptor among them)
                }
            }).count();
        }
    }
}
