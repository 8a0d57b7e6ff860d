package io.jtick.rdb;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscription that feeds the RDB, on a real tickerplant, with {@code tick.rdb.idle-spin} set: its own event loop
 * (polling as {@code Transport}, tested in TransportTest, makes it) delivers every row, and stop ends the loop.
 */
@ExtendWith(LeakCheck.class)
class RdbLifecycleTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private static boolean loopThreadAlive(final String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith(name) && t.isAlive());
    }

    @Test
    void shouldReceiveEveryRowOnASpinningLoopAndEndTheLoopOnStop() throws Exception {
        final TickerplantSettings settings = TickerplantSettings.defaults(dir.resolve("journal")).withPort(0);
        try (TickerplantServer tp = new TickerplantServer(settings, SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start()) {
            final RdbProperties properties = new Binder(new MapConfigurationPropertySource(Map.of("tick.rdb.tp-port",
                String.valueOf(tp.port()), "tick.rdb.name", "rdb-spin", "tick.rdb.idle-spin", "200us")))
                .bindOrCreate("tick.rdb", RdbProperties.class);
            assertThat(properties.idleSpin()).isEqualTo(Duration.ofNanos(200_000));
            final RealtimeDatabase rdb = new RealtimeDatabase(new TickMetrics());
            final RdbLifecycle lifecycle = new RdbLifecycle(properties, rdb, null, TlsClient.OFF);
            lifecycle.start();
            try (FeedPublisher feed = new FeedPublisher("127.0.0.1", tp.port(), "feed", null).connect(5000)) {
                await("subscribed", WAIT, lifecycle::subscribed);
                for (int id = 1; id <= 100; id++) {
                    final ByteBuf b = feed.alloc().directBuffer(256);
                    TestSupport.trade(b, TRADE, id, 1_000_000L * id, "A", "B", "C");
                    assertThat(feed.awaitWritable(10_000_000_000L)).isTrue();
                    assertThat(feed.send(b)).isTrue();
                }
                await("every row in the RDB", WAIT, () -> rdb.rowCount("trade") == 300);
            } finally {
                assertThat(loopThreadAlive("tick-client-rdb-spin")).as("the subscription's own loop").isTrue();
                lifecycle.stop();
            }
            assertThat(lifecycle.isRunning()).isFalse();
            await("the loop ended", WAIT, () -> !loopThreadAlive("tick-client-rdb-spin"));
            assertThat(rdb.lastSequence()).isEqualTo(100);
        }
    }
}
