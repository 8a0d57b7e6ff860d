package io.jtick.tp;

import io.jtick.boot.OpenApiContract;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.KdbTestClient;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.LeaderHint.Address;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real tp-service on random ports: a feed and a subscriber on its socket, REST and Prometheus over HTTP.
 * Leak-checked around the whole class: the application is closed after it ({@link DirtiesContext}), and
 * then nothing it started may still run or hold a buffer or a file. Ignored: the JDK HTTP client the
 * test calls REST with, whose threads and selector (an epoll and an eventfd descriptor) live until the
 * client is collected (Java 17's client cannot be closed); the TP's own event loop would still show as
 * a running thread.
 */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(perClass = true, ignoreThreads = "HttpClient-\\d+-.*",
    ignoreFiles = {"anon_inode:\\[eventpoll\\]", "anon_inode:\\[eventfd\\]"})
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class TpApplicationIT {
    @TempDir
    static Path journal;

    @TempDir
    static Path run;

    @LocalServerPort
    private int httpPort;

    @Autowired
    private TickerplantServer server;

    @Autowired
    private ApplicationContext context;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.tp.port", () -> 0);
        registry.add("tick.tp.kdb-port", () -> 0);
        registry.add("tick.tp.journal-dir", journal::toString);
        registry.add("tick.tp.unix-socket", () -> run.resolve("tp.sock").toString());
    }

    private HttpResponse<String> call(final String method, final String path, final String body) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeFeedsAndSubscribersAndReportThemOverRest() throws Exception {
        final Collector c = new Collector();
        try (TickClient sub = new TickClient(TickClient.Settings.of("127.0.0.1", server.port(), "it-rdb"), c, c::fromSequence, null,
            NanoClock.SYSTEM);
             FeedPublisher feed = new FeedPublisher("127.0.0.1", server.port(), "it-feed", null).connect(5000)) {
            sub.start();
            await("subscribed", Duration.ofSeconds(20), sub::isSubscribed);
            final long before = c.lastSequence;
            for (int id = 1; id <= 20; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TableSchema.trade(0), id, id, "IBM", "MSFT");
                assertThat(feed.send(b)).isTrue();
            }
            await("rows", Duration.ofSeconds(20), () -> c.rows.size() == 40);
            assertThat(c.lastSequence).isEqualTo(before + 20);

            final HttpResponse<String> status = call("GET", "/api/status", null);
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.body()).contains("\"mode\":\"zero-latency\"", "\"name\":\"it-rdb\"", "\"journalSequence\":" + (before + 20));

            final HttpResponse<String> mode = call("PUT", "/api/mode", "{\"mode\":\"timer-publish\",\"timer\":\"50ms\"}");
            assertThat(mode.statusCode()).isEqualTo(200);
            assertThat(mode.body()).contains("timer-publish", "50");
            assertThat(call("PUT", "/api/mode", "{\"mode\":\"sometimes\"}").body()).contains("unknown publish mode");
            assertThat(call("PUT", "/api/mode", "{\"mode\":\"sometimes\"}").statusCode()).isEqualTo(400);
            assertThat(call("PUT", "/api/mode", "{\"mode\":\"timer-publish\",\"timer\":\"soon\"}").statusCode()).isEqualTo(400);
            assertThat(call("PUT", "/api/mode", "not json").statusCode()).isEqualTo(400);
            assertThat(call("PUT", "/api/mode", "{\"mode\":\"zero-latency\"}").statusCode()).isEqualTo(200);

            final HttpResponse<String> eod = call("POST", "/api/eod", null);
            assertThat(eod.statusCode()).isEqualTo(200);
            await("end of day reached the subscriber", Duration.ofSeconds(20), () -> c.endOfDays.size() == 1);

            final HttpResponse<String> prom = call("GET", "/actuator/prometheus", null);
            assertThat(prom.statusCode()).isEqualTo(200);
            assertThat(prom.body()).contains("tick_tp_log_seconds_count",
                "tick_tp_pub_seconds_bucket{application=\"tp-service\",le=\"+Inf\"}", "tick_tp_rows_total",
                "tick_tp_journal_sequence");
        }
    }

    @Test
    void shouldServeFeedsAndSubscribersOnItsUnixSocket() throws Exception {
        final Address unix = Address.unix(run.resolve("tp.sock").toString());
        final Collector c = new Collector();
        try (TickClient sub = new TickClient(TickClient.Settings.of(List.of(unix), "it-unix-rdb"), c, c::fromSequence, null,
            NanoClock.SYSTEM);
             FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of(List.of(unix), "it-unix-feed"), null).connect(5000)) {
            sub.start();
            await("subscribed on the unix socket", Duration.ofSeconds(20), sub::isSubscribed);
            final long before = server.status().journalSequence();
            for (int id = 1; id <= 10; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TableSchema.trade(0), id, id, "UNIX");
                assertThat(feed.send(b)).isTrue();
            }
            await("rows over the unix socket", Duration.ofSeconds(20), () -> c.lastSequence == before + 10);
            assertThat(c.rows.stream().filter(r -> r.startsWith("trade/UNIX/")).count()).isEqualTo(10);
            assertThat(call("GET", "/api/status", null).body()).contains("\"name\":\"it-unix-rdb\"", "\"remote\":\"" + unix + "\"");
        }
    }

    @Test
    void shouldTakeKdbClientsOnItsKdbPortAndExportTheirMetrics() throws Exception {
        assertThat(server.kdbPort()).isPositive().isNotEqualTo(server.port());
        final long before = server.status().journalSequence();
        try (KdbTestClient q = KdbTestClient.connect(server.kdbPort(), "it:")) {
            assertThat(KdbObjects.show(q.call(KdbObjects.call(".u.upd", KdbObjects.sym("trade"), KdbObjects.list(KdbObjects.sym("IBM"),
                KdbObjects.f(187.25), KdbObjects.j(100), KdbObjects.c('N')))).value())).isEqualTo("::");
            assertThat(KdbObjects.show(q.call(KdbObjects.call(".u.upd", KdbObjects.sym("trade"), KdbObjects.list(KdbObjects.sym("IBM"),
                KdbObjects.j(187), KdbObjects.j(100), KdbObjects.c('N')))).value()))
                .isEqualTo("Err[text=type [table=trade column=price expected=float got=long]]");
        }
        assertThat(server.status().journalSequence()).isEqualTo(before + 1);
        final HttpResponse<String> prom = call("GET", "/actuator/prometheus", null);
        assertThat(prom.body()).contains("tick_tp_kdb_rows_total{application=\"tp-service\"} 1.0",
            "tick_tp_kdb_decode_seconds_count", "tick_tp_kdb_call_seconds_bucket",
            "tick_tp_kdb_logins_total{application=\"tp-service\",result=\"allowed\"} 1.0",
            "tick_tp_errors_total{application=\"tp-service\",code=\"wrong-type\"} 1.0");
    }

    @Test
    void shouldDocumentEveryEndpointInOpenApiAndAcceptTheDocumentedExamples() {
        final OpenApiContract api = OpenApiContract.fetch(context, httpPort);
        assertThat(api.assertEveryMappingDocumented(context)).containsExactlyInAnyOrder("GET /api/status", "PUT /api/mode",
            "POST /api/eod", "GET /api/cluster");
        api.assertEveryOperationDescribed();
        assertThat(api.assertExamplesAccepted(Map.of(), Set.of())).hasSize(5); // status, two modes, end of day, cluster
    }
}
