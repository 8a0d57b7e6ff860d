package io.jtick.core.client;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/** A numbered feed's acknowledgement listener against a real tickerplant: each advance once, in order. */
@ExtendWith(LeakCheck.class)
class FeedPublisherAcknowledgementTest {
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

    private TickerplantServer tp(final int ackUpdates, final Duration ackInterval) throws Exception {
        final TickerplantSettings s = TickerplantSettings.defaults(dir).withPort(0).withFeedAcks(ackUpdates, ackInterval);
        return closer.track(new TickerplantServer(s, SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start());
    }

    private static ByteBuf trades(final FeedPublisher feed, final int first, final int count) {
        final ByteBuf b = feed.alloc().directBuffer();
        for (int id = first; id < first + count; id++) {
            TestSupport.trade(b, TRADE, id, 1_000L * id, "S" + id);
        }
        return b;
    }

    @Test
    void shouldTellEachAcknowledgedNumberOnceInOrderWhenEveryUpdateIsAcknowledged() throws Exception {
        final TickerplantServer tp = tp(1, Duration.ofSeconds(60));
        final List<Long> acked = new CopyOnWriteArrayList<>();
        final FeedPublisher feed = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", tp.port(), "acked-feed"), null))
            .onAcknowledged(acked::add);
        feed.connect(WAIT.toMillis());
        assertThat(acked).as("the HELLO answer of a fresh tickerplant acknowledges nothing").isEmpty();

        // one update at a time: each is read alone, so each read batch ends with its own FEED_ACK
        for (int id = 1; id <= 20; id++) {
            assertThat(feed.send(trades(feed, id, 1))).isTrue();
            assertThat(feed.awaitAcknowledged(WAIT.toNanos())).isTrue();
        }
        await("the last acknowledgement told", WAIT, () -> !acked.isEmpty() && acked.get(acked.size() - 1) == 20);
        assertThat(acked).as("one FEED_ACK per journalled update, each told once").hasSize(20).isSorted();
        assertThat(acked).containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList());

        // back to back: the updates of one read batch share the FEED_ACK sent after the subscribers' flush
        for (int id = 21; id <= 60; id++) {
            assertThat(feed.send(trades(feed, id, 1))).isTrue();
        }
        assertThat(feed.awaitAcknowledged(WAIT.toNanos())).isTrue();
        await("the last acknowledgement told", WAIT, () -> acked.get(acked.size() - 1) == 60);
        assertThat(acked).as("advances only, each told once, up to the last update").isSorted().doesNotHaveDuplicates()
            .hasSizeBetween(21, 60);
    }

    @Test
    void shouldTellTheNumberThatCoversASendWhenTheTickerplantAcknowledgesInGroups() throws Exception {
        final TickerplantServer tp = tp(1000, Duration.ofMillis(20));
        final List<Long> acked = new CopyOnWriteArrayList<>();
        final FeedPublisher feed = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", tp.port(), "grouped-feed"), null))
            .onAcknowledged(acked::add);
        feed.connect(WAIT.toMillis());

        assertThat(feed.send(trades(feed, 1, 10))).isTrue();
        assertThat(feed.awaitAcknowledged(WAIT.toNanos())).isTrue();
        await("the acknowledgement told", WAIT, () -> acked.contains(10L));
        // one FEED_ACK on the interval covers the whole send (two, should the TP read the send in two parts)
        assertThat(acked).as("advances only, the last one the whole send").isSorted().doesNotHaveDuplicates().hasSizeBetween(1, 2)
            .endsWith(10L);
    }
}
