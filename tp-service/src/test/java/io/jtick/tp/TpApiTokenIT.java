package io.jtick.tp;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.tp.TickerplantServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tickerplant's REST API guarded as off loopback ({@code tick.api.guard=always} on a random
 * loopback port): end of day and mode changes need the token, status does not; a feed on the
 * tickerplant's port presents it in HELLO.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.api.guard=always", "tick.api.token=tp-t0ken", "tick.tp.port=0", "tick.tp.kdb-port=0"})
class TpApiTokenIT {
    @TempDir
    static Path journal;

    @LocalServerPort
    private int httpPort;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.tp.journal-dir", journal::toString);
    }

    private int status(final String method, final String path, final String body, final String token) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Autowired
    private TickerplantServer server;

    @Test
    void shouldAskAFeedForTheTokenInItsHelloOnTheTickerplantPort() throws Exception {
        try (FeedPublisher stranger = new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", server.port(), "stranger"), null)) {
            assertThatThrownBy(() -> stranger.connect(10_000)).isInstanceOf(IOException.class)
                .hasMessageContaining("access-denied: the API token is required [access=write");
        }
        try (FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", server.port(), "md").withToken("tp-t0ken"),
            null).connect(10_000)) {
            assertThat(feed.stats().connected()).isTrue();
            assertThat(server.status().feeds()).isEqualTo(1);
        }
    }

    @Test
    void shouldAskForTheTokenToEndTheDayOrChangeTheMode() throws Exception {
        assertThat(status("POST", "/api/eod", null, null)).isEqualTo(401);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", null)).isEqualTo(401);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", "nope")).isEqualTo(401);
        assertThat(status("GET", "/api/status", null, null)).isEqualTo(200);

        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", "tp-t0ken")).isEqualTo(200);
        assertThat(status("POST", "/api/eod", null, "tp-t0ken")).isEqualTo(200);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"zero-latency\"}", "tp-t0ken")).isEqualTo(200);
    }
}
