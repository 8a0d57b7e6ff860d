package io.jtick.rdb;

import io.jtick.boot.OpenApiContract;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rdb-service's OpenAPI document against the real service: subscribed to a real tickerplant
 * on loopback that journals a feed's trades, with the end-of-day write-down and journal replay on,
 * every controller mapping is documented and every documented example is accepted.
 */
class RdbOpenApiIT {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldDocumentEveryEndpointAndAcceptTheDocumentedExamples() throws Exception {
        final Path journal = dir.resolve("journal");
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(journal).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC), SCHEMAS, NanoClock.SYSTEM,
            new TickMetrics()).start());
        final ConfigurableApplicationContext rdb = closer.track(new SpringApplicationBuilder(RdbApplication.class).run(
            "--server.port=0", "--server.address=127.0.0.1", "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms",
            "--tick.rdb.hdb.root=" + Files.createDirectories(dir.resolve("hdb")), "--tick.rdb.journal-root=" + journal));
        final int port = Integer.parseInt(rdb.getEnvironment().getProperty("local.server.port"));
        final RdbLifecycle subscription = rdb.getBean(RdbLifecycle.class);
        await("subscribed", Duration.ofSeconds(30), subscription::subscribed);
        try (FeedPublisher feed = new FeedPublisher("127.0.0.1", tp.port(), "feed", null).connect(5000)) {
            for (int id = 1; id <= 50; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TRADE, id, System.currentTimeMillis() * 1_000_000L, "S0001", "S0002", "S0003");
                assertThat(feed.awaitWritable(10_000_000_000L)).isTrue();
                assertThat(feed.send(b)).isTrue();
            }
        }
        await("150 rows in the RDB", Duration.ofSeconds(30), () -> rdb.getBean(RdbController.class).status().rows() == 150);

        final OpenApiContract api = OpenApiContract.fetch(rdb, port);
        assertThat(api.assertEveryMappingDocumented(rdb)).containsExactlyInAnyOrder("POST /api/query", "POST /api/sql", "GET /api/tables",
            "GET /api/status", "POST /api/eod/replay");
        api.assertEveryOperationDescribed();
        // the replay's date must be one the journal holds: the tickerplant's trading day (with the end of
        // day 12 hours from now, that is tomorrow's date in the afternoon)
        final LocalDate day = tp.call(t -> t.date());
        assertThat(api.assertExamplesAccepted(Map.of("date", day.toString()), Set.of()))
            .hasSize(7); // two query examples, two SQL examples, tables, status, replay
    }
}
