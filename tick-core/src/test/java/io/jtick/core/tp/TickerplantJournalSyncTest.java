package io.jtick.core.tp;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.journal.FeedRuns;
import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code tick.tp.journal.sync}: with {@code batch} no FEED_ACK leaves before the force that covers
 * it, and one force serves a whole batch of work; with {@code none} nothing is ever forced. The real
 * Chronicle journal, wrapped to note how far each force reached.
 */
@ExtendWith(LeakCheck.class)
class TickerplantJournalSyncTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(DAY.atTime(LocalTime.NOON).atZone(NEW_YORK).toInstant().toEpochMilli() * 1_000_000L);
    private final TickMetrics metrics = new TickMetrics();
    private final Forces forces = new Forces();
    private final Closer closer = new Closer();
    private Tickerplant tp;

    @AfterEach
    void closeAll() throws Exception {
        if (tp != null) {
            tp.close();
        }
        closer.close();
    }

    /** What the journals of one tickerplant were asked to force, and how far the last force reached. */
    private static final class Forces {
        int calls;
        int forced;
        /** Sequence the journal was forced up to (-1: never forced). */
        long upTo = -1;
        boolean fail;

        Journal.Opener opener() {
            return (root, date, previousLastSequence, clock, minFree) -> new Recording(Journal.open(root, date, previousLastSequence, clock,
                minFree), this);
        }
    }

    /** The real journal; its forces noted in {@link Forces}, failing on demand. */
    private static final class Recording implements Journal {
        private final Journal real;
        private final Forces forces;

        Recording(final Journal real, final Forces forces) {
            this.real = real;
            this.forces = forces;
        }

        @Override
        public long sync() {
            forces.calls++;
            if (forces.fail) {
                throw new IllegalStateException("injected: fdatasync failed (EIO)");
            }
            final long nanos = real.sync();
            if (nanos >= 0) {
                forces.forced++;
            }
            forces.upTo = real.lastSequence();
            return nanos;
        }

        @Override
        public void append(final ByteBuf frame, final int offset, final int length, final long sequence, final FeedRuns feeds) {
            real.append(frame, offset, length, sequence, feeds);
        }

        @Override
        public int pretouch(final int maxPages) {
            return real.pretouch(maxPages);
        }

        @Override
        public JournalReader readerAfter(final long sequence) {
            return real.readerAfter(sequence);
        }

        @Override
        public LocalDate date() {
            return real.date();
        }

        @Override
        public Path dir() {
            return real.dir();
        }

        @Override
        public long firstSequence() {
            return real.firstSequence();
        }

        @Override
        public long lastSequence() {
            return real.lastSequence();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /**
     * A numbered feed as the tickerplant sees it: every acknowledgement with how far the journal was
     * forced when it was sent. One feed on a fresh journal: its number k is the journal's sequence k.
     */
    private final class Feed implements UpdateSource {
        final List<Long> acks = new ArrayList<>();
        final List<Long> forcedAtAck = new ArrayList<>();
        final List<String> refusals = new ArrayList<>();
        FeedRegistry.Feed feed;
        long next = 1;

        Feed hello(final String name) {
            feed = tp.onFeedHello(this, name);
            return this;
        }

        ErrorCode send() {
            final ByteBuf f = TestSupport.tradeFrame(TRADE, next, "A");
            try {
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, next++);
                return tp.onUpdate(this, f, f.readerIndex(), f.readableBytes());
            } finally {
                f.release();
            }
        }

        void send(final int n) {
            for (int k = 0; k < n; k++) {
                assertThat(send()).isEqualTo(ErrorCode.NONE);
            }
        }

        @Override
        public void refuse(final ErrorCode code, final String reason) {
            refusals.add(code.tag());
        }

        @Override
        public FeedRegistry.Feed feed() {
            return feed;
        }

        @Override
        public void acknowledge(final long feedSequence) {
            acks.add(feedSequence);
            forcedAtAck.add(forces.upTo);
        }

        /** Every acknowledgement covered only entries a force had reached when it was sent. */
        void assertNoneAheadOfTheForce() {
            for (int k = 0; k < acks.size(); k++) {
                assertThat(acks.get(k)).as("acknowledgement %d (%d) against the force before it (%d)", k, acks.get(k), forcedAtAck.get(k))
                    .isLessThanOrEqualTo(forcedAtAck.get(k));
            }
        }
    }

    private TickerplantSettings settings(final JournalSync sync) {
        return TickerplantSettings.defaults(dir.resolve("journal")).withEndOfDay(LocalTime.of(17, 0), NEW_YORK)
            .withFeedAcks(1, Duration.ofMillis(100)).withJournalSync(sync);
    }

    private void start(final TickerplantSettings s) {
        tp = new Tickerplant(s, SCHEMAS, now::get, PooledByteBufAllocator.DEFAULT, metrics, forces.opener());
    }

    private long syncs() {
        return metrics.counter("tick.tp.journal.syncs").get();
    }

    @Test
    void shouldSendNoAcknowledgementBeforeTheForceThatCoversItAndForceOncePerReadBatch() {
        start(settings(JournalSync.BATCH));
        final Feed feed = new Feed().hello("md");
        assertThat(feed.acks).as("the HELLO answer waits for the end of the read batch").isEmpty();
        tp.flush();
        assertThat(feed.acks).containsExactly(0L);

        feed.send(5);
        assertThat(feed.acks).as("due after each update (feedAckUpdates=1), held until the force").containsExactly(0L);
        assertThat(forces.calls).isEqualTo(1);
        tp.flush();
        assertThat(feed.acks).containsExactly(0L, 5L);
        assertThat(forces.forced).as("one force for the five updates of the batch").isEqualTo(2);

        tp.flush();
        assertThat(forces.calls).as("no acknowledgement held: no force").isEqualTo(2);

        feed.send(3);
        tp.acknowledgeFeeds();
        assertThat(feed.acks).as("the housekeeping acknowledgement forces too").containsExactly(0L, 5L, 8L);
        feed.assertNoneAheadOfTheForce();
        assertThat(forces.forced).isEqualTo(3);
        assertThat(syncs()).isEqualTo(3);
        assertThat(metrics.latency("tick.tp.journal.sync", "").snapshot().getTotalCount()).isEqualTo(3);
    }

    @Test
    void shouldNeverForceWithSyncNone() {
        start(settings(JournalSync.NONE));
        final Feed feed = new Feed().hello("md");
        tp.flush();
        feed.send(5);
        tp.flush();
        tp.acknowledgeFeeds();
        tp.onEndOfDay();
        assertThat(feed.acks).as("at the end of each read batch, after the subscribers' flush, with no force")
            .containsExactly(0L, 5L);
        assertThat(forces.calls).isZero();
        assertThat(syncs()).isZero();
    }

    @Test
    void shouldForceTheTimerTickBeforeItsAcknowledgementsInTimerLogPublish() {
        start(settings(JournalSync.BATCH).withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final Feed feed = new Feed().hello("md");
        tp.flush();
        feed.send(4);
        tp.flush();
        assertThat(feed.acks).as("nothing journalled before the tick").containsExactly(0L);
        tp.onTimer();
        assertThat(feed.acks).containsExactly(0L, 4L);
        assertThat(forces.upTo).as("the tick's one entry").isEqualTo(1);
        assertThat(feed.forcedAtAck.get(1)).as("forced before its acknowledgement went out").isEqualTo(1);
    }

    @Test
    void shouldForceTheDayAtEndOfDayBeforeAnAcknowledgementOfItCanGoOut() {
        start(settings(JournalSync.BATCH).withFeedAcks(1000, Duration.ofMillis(1)));
        final Feed feed = new Feed().hello("md");
        tp.flush();
        feed.send(3);
        tp.flush();
        assertThat(forces.forced).as("no acknowledgement due yet").isEqualTo(1);
        tp.onEndOfDay();
        assertThat(forces.forced).as("the day's journal forced before it is closed").isEqualTo(2);
        assertThat(forces.upTo).isEqualTo(3);
        await("the interval's acknowledgement", WAIT, () -> {
            tp.acknowledgeFeeds();
            return feed.acks.contains(3L);
        });
        feed.assertNoneAheadOfTheForce();
    }

    @Test
    void shouldRefuseTheFeedsInsteadOfAcknowledgingWhenTheForceFails() {
        start(settings(JournalSync.BATCH));
        final Feed feed = new Feed().hello("md");
        tp.flush();
        forces.fail = true;
        feed.send(2);
        tp.flush();
        assertThat(feed.acks).containsExactly(0L);
        assertThat(feed.refusals).containsExactly("journal-failure");
        assertThat(tp.lastError()).contains("cannot be forced").contains("EIO");
        assertThat(metrics.counter("tick.tp.errors|code=journal-failure").get()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAnUnknownSyncValueNamingTheKey() {
        assertThatThrownBy(() -> JournalSync.parse("fsync")).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("unknown journal sync [tick.tp.journal.sync=fsync, known=none|batch]");
        assertThatThrownBy(() -> settings(null).validate()).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("journalSync");
        assertThat(JournalSync.parse("BATCH")).isEqualTo(JournalSync.BATCH);
    }

    @ParameterizedTest
    @EnumSource(JournalSync.class)
    void shouldGroupForcesUnderABurstOverRealSockets(final JournalSync sync) throws Exception {
        final TickerplantServer server = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal"))
            .withPort(0).withFeedAcks(1, Duration.ofMillis(100)).withJournalSync(sync), SCHEMAS, NanoClock.SYSTEM, metrics).start());
        final FeedPublisher f = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", server.port(), "burst"), null)
            .connect(5000));
        final int total = 2000;
        final int perSend = 50;
        for (int id = 1; id <= total; id += perSend) {
            // 50 updates in one write: they reach the tickerplant in few read batches
            final ByteBuf b = f.alloc().directBuffer(256 * perSend);
            for (int k = id; k < id + perSend; k++) {
                TestSupport.trade(b, TRADE, k, 1_000_000L * k, "A");
            }
            assertThat(f.awaitWritable(WAIT.toNanos())).isTrue();
            assertThat(f.send(b)).isTrue();
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).as("every update acknowledged").isTrue();
        assertThat(server.status().journalSequence()).isEqualTo(total);
        if (sync == JournalSync.NONE) {
            assertThat(syncs()).isZero();
        } else {
            assertThat(syncs()).as("forces, for %d updates each acknowledged on its own", total).isPositive().isLessThan(total);
        }
    }
}
