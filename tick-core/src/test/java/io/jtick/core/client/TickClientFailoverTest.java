package io.jtick.core.client;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.LeaderHint.Address;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscriber given several tickerplants whose journals hold the same entries under the same
 * sequence numbers (TP A, and TP B chained from A, as the members of a TP cluster are) continues on
 * B when A goes away, from the last sequence it received: every row exactly once, in order.
 */
@ExtendWith(LeakCheck.class)
class TickClientFailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    private TickerplantServer startTp(final TickerplantSettings s) throws IOException {
        return closer.track(new TickerplantServer(s, SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start());
    }

    private static void send(final FeedPublisher f, final int from, final int to) {
        for (int id = from; id <= to; id++) {
            final ByteBuf b = f.alloc().directBuffer(256);
            TestSupport.trade(b, TRADE, id, 1_000_000L * id, "A");
            assertThat(f.awaitWritable(WAIT.toNanos())).isTrue();
            assertThat(f.send(b)).isTrue();
        }
    }

    @Test
    void shouldContinueOnTheNextTickerplantFromTheLastSequenceWithNoGapAndNoDuplicate() throws Exception {
        final TickerplantServer a = startTp(TickerplantSettings.defaults(dir.resolve("a")).withPort(0));
        final int portA = a.port();
        final TickerplantServer b = startTp(TickerplantSettings.defaults(dir.resolve("b")).withPort(0)
            .withUpstream(List.of(new Address("127.0.0.1", portA))));
        await("B subscribed to A", WAIT, () -> a.status().subscribers().size() == 1);

        final Collector rdb = new Collector();
        final List<Address> both = List.of(new Address("127.0.0.1", portA), new Address("127.0.0.1", b.port()));
        final TickClient client = closer.track(new TickClient(TickClient.Settings.of(both, "rdb"), rdb, rdb::fromSequence, null,
            NanoClock.SYSTEM));
        client.start();
        await("subscribed to A", WAIT, client::isSubscribed);
        assertThat(client.tickerplant().port()).isEqualTo(portA);

        final FeedPublisher feed = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", portA, "md")
            .withReconnect(Duration.ofMillis(20), Duration.ofMillis(200)), null).connect(WAIT.toMillis()));
        send(feed, 1, 500);
        await("first half at the subscriber", WAIT, () -> rdb.rows.size() == 500);
        final long before = rdb.lastSequence;

        a.close();
        closer.forget(a);
        await("subscribed to B", WAIT, () -> client.isSubscribed() && client.tickerplant().port() == b.port());
        assertThat(client.tickerplantChanges()).isEqualTo(1);
        assertThat(rdb.lastSequence).as("nothing new while A is gone").isEqualTo(before);

        // A comes back; B's upstream subscription and the feed reconnect to it; the subscriber stays on B
        startTp(TickerplantSettings.defaults(dir.resolve("a")).withPort(portA));
        send(feed, 501, 1000);
        assertThat(feed.awaitAcknowledged(WAIT.toNanos())).isTrue();
        await("every row at the subscriber, through B", WAIT, () -> rdb.rows.size() >= 1000);

        final List<String> expected = new ArrayList<>();
        for (int id = 1; id <= 1000; id++) {
            expected.add("trade/A/" + id * 1000L);
        }
        assertThat(new ArrayList<>(rdb.rows)).as("every row exactly once, in order").isEqualTo(expected);
        assertThat(rdb.duplicates).as("no update the subscriber already held reached it").isZero();
        assertThat(rdb.sequences).as("A's sequence numbers, no gap").isEqualTo(java.util.stream.LongStream.rangeClosed(1, 1000).boxed()
            .toList());
        assertThat(client.tickerplant().port()).isEqualTo(b.port());
        assertThat(b.status().journalSequence()).isEqualTo(1000);
    }
}
