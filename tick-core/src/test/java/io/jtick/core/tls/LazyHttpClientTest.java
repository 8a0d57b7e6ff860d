package io.jtick.core.tls;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.net.ssl.SSLContext;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** One client per holder, built by whichever caller comes first, with the holder's settings. */
@ExtendWith(LeakCheck.class)
// Java 17's HttpClient has no close(): its selector thread, with its epoll and eventfd descriptors, ends only once
// the client is garbage-collected (as in RemoteRdbSourceTest)
@LeakCheck.Options(ignoreThreads = "HttpClient-\\d+-(SelectorManager|Worker-\\d+)|pool-\\d+-thread-\\d+",
    ignoreFiles = "anon_inode:\\[(eventpoll|eventfd)\\]")
class LazyHttpClientTest {
    @Test
    void shouldBuildOneClientWithItsSettingsForEveryCallerRacingForTheFirst() throws Exception {
        final SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, null, null);
        final LazyHttpClient lazy = new LazyHttpClient(Duration.ofMillis(1500), HttpClient.Version.HTTP_1_1, tls);
        final int threads = 4;
        final CyclicBarrier start = new CyclicBarrier(threads);
        final Callable<HttpClient> first = () -> {
            start.await(10, TimeUnit.SECONDS);
            return lazy.get();
        };
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            final List<Future<HttpClient>> got = pool.invokeAll(Collections.nCopies(threads, first));
            final HttpClient client = got.get(0).get();
            for (final Future<HttpClient> f : got) {
                assertThat(f.get()).isSameAs(client);
            }
            assertThat(lazy.get()).isSameAs(client);
            assertThat(client.connectTimeout()).contains(Duration.ofMillis(1500));
            assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(client.sslContext()).isSameAs(tls);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldLeaveTheVersionAndContextToTheJdkWhenNotGiven() throws Exception {
        final HttpClient client = new LazyHttpClient(Duration.ofSeconds(2), null, null).get();
        assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(client.sslContext()).isSameAs(SSLContext.getDefault());
        assertThat(client.connectTimeout()).contains(Duration.ofSeconds(2));
    }
}
