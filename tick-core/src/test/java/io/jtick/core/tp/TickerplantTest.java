package io.jtick.core.tp;

import io.jtick.core.journal.JournalReader;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tickerplant on its own, no sockets: driven directly on the test thread with a clock the test
 * moves, subscribers on embedded channels, and a real journal that can be made to fail.
 */
@ExtendWith(LeakCheck.class)
class TickerplantTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(nanos(DAY, LocalTime.NOON));
    private final TickMetrics metrics = new TickMetrics();
    private final FaultyJournal.Fault fault = new FaultyJournal.Fault();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private Tickerplant tp;

    @AfterEach
    void closeAll() {
        if (tp != null) {
            tp.close();
        }
        for (final EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    private static long nanos(final LocalDate date, final LocalTime time) {
        return date.atTime(time).atZone(NEW_YORK).toInstant().toEpochMilli() * 1_000_000L;
    }

    private TickerplantSettings settings() {
        return TickerplantSettings.defaults(dir.resolve("journal")).withEndOfDay(LocalTime.of(17, 0), NEW_YORK);
    }

    private Tickerplant start(final TickerplantSettings s) {
        tp = new Tickerplant(s, SCHEMAS, now::get, PooledByteBufAllocator.DEFAULT, metrics, FaultyJournal.opener(fault));
        return tp;
    }

    private EmbeddedChannel subscribe(final EmbeddedChannel ch, final long from, final List<String> tables, final List<String> syms) {
        channels.add(ch);
        assertThat(tp.onSubscribe(ch, "sub" + channels.size(), new ControlFrames.Subscribe(from, tables, syms))).isNull();
        return ch;
    }

    private EmbeddedChannel subscribe(final long from, final List<String> syms) {
        return subscribe(new EmbeddedChannel(), from, List.of(), syms);
    }

    /** One trade update whose row r has sym {@code syms[r]} and size {@code id * 1000 + r}. */
    private ErrorCode update(final UpdateSource from, final long id, final String... syms) {
        final ByteBuf f = TestSupport.tradeFrame(TRADE, id, syms);
        try {
            return tp.onUpdate(from, f, f.readerIndex(), f.readableBytes());
        } finally {
            f.release();
        }
    }

    /** Sequence and "sym/size" rows of every entry in the day's journal, read read-only. */
    private List<String> journal(final LocalDate date) {
        final List<String> out = new ArrayList<>();
        final UpdateDecoder d = new UpdateDecoder();
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try (JournalReader r = JournalReader.open(dir.resolve("journal"), date, 0)) {
            while (r.next(buf.clear(), Long.MAX_VALUE) > 0) {
                d.wrap(buf, 0);
                final StringBuilder sb = new StringBuilder().append(d.sequence()).append(':');
                for (int row = 0; row < d.rowCount(); row++) {
                    sb.append(row == 0 ? "" : ",").append(d.symString(d.symCode(row))).append('/').append(d.int64(3, row));
                }
                out.add(sb.toString());
            }
        } finally {
            buf.release();
        }
        return out;
    }

    private long counter(final String name) {
        return metrics.counter(name).get();
    }

    @Test
    void shouldJournalAndPublishEachUpdateAtOnceInZeroLatencyMode() {
        start(settings());
        final EmbeddedChannel sub = subscribe(-1, List.of());
        assertThat(Frames.drain(sub).types()).containsExactly("subscribed");

        assertThat(update(null, 1, "IBM", "MSFT")).isEqualTo(ErrorCode.NONE);
        assertThat(Frames.drain(sub).frames()).as("written, flushed only at the end of the read batch").isEmpty();
        tp.flush();
        final Frames out = Frames.drain(sub);
        assertThat(out.updates()).hasSize(1);
        assertThat(out.updates().get(0).sequence()).isEqualTo(1);
        assertThat(out.updates().get(0).tpTime()).isEqualTo(now.get());
        assertThat(out.rows()).containsExactly("IBM/1000", "MSFT/1001");
        assertThat(tp.sequence()).isEqualTo(1);
        assertThat(tp.journalSequence()).isEqualTo(1);
        assertThat(journal(DAY)).containsExactly("1:IBM/1000,MSFT/1001");
        assertThat(counter("tick.tp.rows")).isEqualTo(2);
        assertThat(tp.status(null).tables().get(0).rows()).isEqualTo(2);
        assertThat(metrics.latency("tick.tp.log", "").count()).isEqualTo(1);

        tp.heartbeat();
        assertThat(Frames.drain(sub).types()).containsExactly("heartbeat");
    }

    @Test
    void shouldStampTheTimeOfUpdatesThatLeaveItUnset() {
        start(settings());
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final ByteBuf f = TestSupport.tradeFrame(TRADE, 1, "A", "B");
        try {
            f.setShortLE(FrameDescriptor.FLAGS_OFFSET, FrameDescriptor.FLAG_STAMP_TIME);
            assertThat(tp.onUpdate(null, f, 0, f.readableBytes())).isEqualTo(ErrorCode.NONE);
            final UpdateDecoder d = new UpdateDecoder().wrap(f, 0);
            assertThat(d.timestamp(0)).isEqualTo(now.get());
            assertThat(d.timestamp(1)).isEqualTo(now.get());
            assertThat(d.flags() & FrameDescriptor.FLAG_STAMP_TIME).isZero();
        } finally {
            f.release();
        }
        tp.flush();
        assertThat(Frames.drain(sub).updates()).hasSize(1);
    }

    @Test
    void shouldSendEachSubscriberOnlyTheTablesAndSymsItAskedFor() {
        start(settings());
        final EmbeddedChannel all = subscribe(-1, List.of());
        final EmbeddedChannel ibm = subscribe(-1, List.of("IBM"));
        final EmbeddedChannel ibmToo = subscribe(-1, List.of("IBM"));
        final EmbeddedChannel msftAapl = subscribe(-1, List.of("MSFT", "AAPL"));
        final EmbeddedChannel quotes = subscribe(new EmbeddedChannel(), -1, List.of("quote"), List.of());
        update(null, 1, "IBM", "MSFT", "IBM");
        update(null, 2, "AAPL");
        update(null, 3, "GOOG");
        tp.flush();

        assertThat(Frames.drain(all).rows()).containsExactly("IBM/1000", "MSFT/1001", "IBM/1002", "AAPL/2000", "GOOG/3000");
        final Frames ibmOut = Frames.drain(ibm);
        assertThat(ibmOut.rows()).containsExactly("IBM/1000", "IBM/1002");
        assertThat(ibmOut.sequences()).as("updates without an IBM row are not sent").containsExactly(1L);
        assertThat(Frames.drain(ibmToo).rows()).containsExactly("IBM/1000", "IBM/1002");
        assertThat(Frames.drain(msftAapl).rows()).containsExactly("MSFT/1001", "AAPL/2000");
        assertThat(Frames.drain(quotes).types()).containsExactly("subscribed");
        assertThat(tp.status(null).subscribers()).extracting(TickerplantStatus.SubscriberStatus::syms)
            .containsExactly(List.of(), List.of("IBM"), List.of("IBM"), List.of("AAPL", "MSFT"), List.of());
    }

    @Test
    void shouldJournalAtOnceAndPublishOneMergedUpdatePerTableOnTheTimerInTimerPublishMode() {
        start(settings().withMode(PublishMode.TIMER_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        update(null, 1, "A", "B");
        update(null, 2, "C");
        update(null, 3, "A");
        tp.flush();
        assertThat(tp.journalSequence()).isEqualTo(3);
        assertThat(tp.sequence()).isZero();
        assertThat(journal(DAY)).hasSize(3);
        assertThat(Frames.drain(sub).frames()).isEmpty();

        now.addAndGet(100_000_000L);
        tp.onTimer();
        final Frames out = Frames.drain(sub);
        assertThat(out.updates()).hasSize(1);
        assertThat(out.updates().get(0).sequence()).isEqualTo(3);
        assertThat(out.updates().get(0).updateCount()).isEqualTo(3);
        assertThat(out.updates().get(0).tpTime()).as("stamped when published").isEqualTo(now.get());
        assertThat(out.rows()).containsExactly("A/1000", "B/1001", "C/2000", "A/3000");
        assertThat(out.updates().get(0).dictionary()).as("one entry per sym, in order of arrival").containsExactly("A", "B", "C");
        assertThat(tp.sequence()).isEqualTo(3);
        assertThat(metrics.latency("tick.tp.timer", "").count()).isEqualTo(1);

        tp.onTimer();
        assertThat(Frames.drain(sub).frames()).as("nothing pending, nothing sent").isEmpty();
        assertThat(metrics.latency("tick.tp.timer", "").count()).isEqualTo(1);

        update(null, 4, "D");
        update(null, 5, "C", "D");
        tp.onTimer();
        final Frames next = Frames.drain(sub);
        assertThat(next.updates()).singleElement().satisfies(u -> {
            assertThat(u.rows()).as("the next tick starts empty").containsExactly("D/4000", "C/5000", "D/5001");
            assertThat(u.dictionary()).containsExactly("D", "C");
            assertThat(u.sequence()).isEqualTo(5);
            assertThat(u.updateCount()).isEqualTo(2);
        });
    }

    @Test
    void shouldNotOverwriteAMergedUpdateASubscriberStillHolds() {
        start(settings().withMode(PublishMode.TIMER_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        update(null, 1, "A", "B");
        tp.onTimer();
        update(null, 2, "C");
        tp.onTimer();
        update(null, 3, "D", "E", "F");
        tp.onTimer();
        final Frames out = Frames.drain(sub);
        assertThat(out.updates()).extracting(Frames.Frame::rows)
            .containsExactly(List.of("A/1000", "B/1001"), List.of("C/2000"), List.of("D/3000", "E/3001", "F/3002"));
        assertThat(out.sequences()).containsExactly(1L, 2L, 3L);
    }

    @Test
    void shouldJournalAndPublishOnlyOnTheTimerInTimerLogPublishMode() {
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        update(null, 1, "A");
        update(null, 2, "B");
        assertThat(tp.journalSequence()).isZero();
        assertThat(journal(DAY)).isEmpty();
        assertThat(counter("tick.tp.rows")).as("rows count when journalled").isZero();

        tp.onTimer();
        assertThat(journal(DAY)).as("the batch is one entry, the update it publishes").containsExactly("1:A/1000,B/2000");
        final Frames out = Frames.drain(sub);
        assertThat(out.sequences()).containsExactly(1L);
        assertThat(out.rows()).containsExactly("A/1000", "B/2000");
        assertThat(tp.sequence()).isEqualTo(1);
        assertThat(counter("tick.tp.rows")).isEqualTo(2);
        assertThat(counter("tick.tp.updates")).as("updates count as the feeds sent them").isEqualTo(2);

        update(null, 3, "C");
        tp.onTimer();
        assertThat(Frames.drain(sub).sequences()).containsExactly(2L);
        assertThat(journal(DAY)).containsExactly("1:A/1000,B/2000", "2:C/3000");
        assertThat(Frames.drain(subscribe(0, List.of())).updates()).as("catch-up serves the merged entries")
            .extracting(Frames.Frame::rows).containsExactly(List.of("A/1000", "B/2000"), List.of("C/3000"));
    }

    @ParameterizedTest
    @EnumSource(value = PublishMode.class, names = {"TIMER_PUBLISH", "TIMER_LOG_PUBLISH"})
    void shouldTickEarlyWhenATimerBatchWouldOutgrowOneFrame(final PublishMode mode) {
        start(settings().withMaxFrameLength(1024).withMode(mode, Duration.ofSeconds(1)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        for (int id = 1; id <= 20; id++) {
            update(null, id, "S" + id);
        }
        tp.flush();
        final List<Integer> sizes = new ArrayList<>();
        final List<String> rows = new ArrayList<>();
        final UpdateDecoder d = new UpdateDecoder();
        for (Object o = sub.readOutbound(); o != null; o = sub.readOutbound()) {
            final ByteBuf b = (ByteBuf) o;
            sizes.add(b.readableBytes());
            d.wrap(b, b.readerIndex());
            for (int r = 0; r < d.rowCount(); r++) {
                rows.add(d.symString(d.symCode(r)));
            }
            b.release();
        }
        assertThat(sizes).as("published before the timer, each within the frame limit").hasSizeGreaterThan(1)
            .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(1024));
        tp.onTimer();
        rows.addAll(Frames.drain(sub).rows().stream().map(r -> r.substring(0, r.indexOf('/'))).toList());
        assertThat(rows).as("every row once, in order").containsExactlyElementsOf(
            java.util.stream.IntStream.rangeClosed(1, 20).mapToObj(i -> "S" + i).toList());
    }

    @Test
    void shouldPublishWhatIsPendingWhenTheModeChanges() {
        start(settings().withMode(PublishMode.TIMER_PUBLISH, Duration.ofSeconds(1)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        update(null, 1, "A");
        update(null, 2, "B");
        tp.setMode(PublishMode.ZERO_LATENCY, 1_000_000L);
        assertThat(Frames.drain(sub).sequences()).containsExactly(2L);
        update(null, 3, "C");
        tp.flush();
        assertThat(Frames.drain(sub).sequences()).containsExactly(3L);
        assertThat(tp.mode()).isEqualTo(PublishMode.ZERO_LATENCY);
    }

    @ParameterizedTest
    @EnumSource(PublishMode.class)
    void shouldRefuseWhatTheJournalRefusesInEveryModeAndNeverReuseAPublishedSequence(final PublishMode mode) {
        start(settings().withMode(mode, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final List<String> refusals = new ArrayList<>();
        final UpdateSource feed = (code, reason) -> refusals.add(code.tag() + ": " + reason);

        assertThat(update(feed, 1, "A")).isEqualTo(ErrorCode.NONE);
        tp.onTimer();
        fault.failNow();
        final ErrorCode code = update(feed, 2, "B");
        tp.onTimer();
        tp.flush();
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            assertThat(code).as("accepted into the batch, refused when the timer journals it").isEqualTo(ErrorCode.NONE);
            assertThat(refusals).singleElement().asString().startsWith("journal-failure").contains("sequence=2");
        } else {
            assertThat(code).isEqualTo(ErrorCode.JOURNAL_FAILURE);
            assertThat(tp.lastError()).contains("journal").contains("sequence=2");
            assertThat(refusals).isEmpty();
        }
        assertThat(tp.journalSequence()).isEqualTo(1);
        assertThat(tp.sequence()).isEqualTo(1);
        assertThat(counter("tick.tp.errors|code=journal-failure")).isEqualTo(1);
        assertThat(counter("tick.tp.rows")).isEqualTo(1);

        fault.heal();
        assertThat(update(feed, 3, "C")).isEqualTo(ErrorCode.NONE);
        tp.onTimer();
        tp.flush();
        final Frames out = Frames.drain(sub);
        assertThat(out.rows()).as("nothing of the refused update").containsExactly("A/1000", "C/3000");
        assertThat(out.sequences()).containsExactly(1L, 2L);
        assertThat(journal(DAY)).as("2 went to the next update that was journalled").containsExactly("1:A/1000", "2:C/3000");
    }

    @Test
    void shouldJournalEachTablesTimerBatchAllOrNothingPublishTheJournalledTablesAndRefuseTheRestToTheirSenders() {
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final NumberedFeed a = new NumberedFeed();
        final NumberedFeed b = new NumberedFeed();
        numbered(a, 0, 1, "A");
        numberedQuote(b, 0, 2);
        numbered(b, 0, 3, "C");
        numberedQuote(a, 0, 4);
        fault.failAfter(1);
        tp.onTimer();

        final Frames out = Frames.drain(sub);
        assertThat(out.updates()).as("the trade batch only").singleElement().satisfies(u -> {
            assertThat(u.sequence()).isEqualTo(1);
            assertThat(u.updateCount()).isEqualTo(2);
            assertThat(u.rows()).containsExactly("A/1000", "C/3000");
            assertThat(u.dictionary()).containsExactly("A", "C");
        });
        assertThat(a.refusals).as("its quote").containsExactly("journal-failure");
        assertThat(b.refusals).containsExactly("journal-failure");
        assertThat(counter("tick.tp.errors|code=journal-failure")).as("each refused update").isEqualTo(2);
        assertThat(journal(DAY)).containsExactly("1:A/1000,C/3000");

        fault.heal();
        update(null, 5, "E");
        tp.onTimer();
        assertThat(Frames.drain(sub).sequences()).containsExactly(2L);
        assertThat(journal(DAY)).containsExactly("1:A/1000,C/3000", "2:E/5000");
    }

    @Test
    void shouldReplayTheJournalToALateSubscriberThenTurnItLive() {
        start(settings());
        for (int id = 1; id <= 5; id++) {
            update(null, id, id % 2 == 0 ? "B" : "A");
        }
        final EmbeddedChannel whole = subscribe(0, List.of());
        final EmbeddedChannel fromThree = subscribe(3, List.of());
        final EmbeddedChannel onlyB = subscribe(0, List.of("B"));
        final EmbeddedChannel upToDate = subscribe(5, List.of());

        final Frames wholeOut = Frames.drain(whole);
        assertThat(wholeOut.types()).containsExactly("subscribed", "update", "update", "update", "update", "update", "catch-up-done");
        assertThat(wholeOut.sequences()).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(Frames.drain(fromThree).sequences()).containsExactly(4L, 5L);
        assertThat(Frames.drain(onlyB).rows()).containsExactly("B/2000", "B/4000");
        assertThat(Frames.drain(upToDate).types()).containsExactly("subscribed", "catch-up-done");

        update(null, 6, "B");
        tp.flush();
        for (final EmbeddedChannel ch : List.of(whole, fromThree, onlyB, upToDate)) {
            assertThat(Frames.drain(ch).sequences()).as("live after catching up").containsExactly(6L);
        }
    }

    @Test
    void shouldEndTheDayWhenTheClockPassesItAndRollTheJournal() {
        now.set(nanos(DAY, LocalTime.of(16, 59, 50)));
        start(settings().withMode(PublishMode.TIMER_PUBLISH, Duration.ofSeconds(1)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        Frames.drain(sub);
        update(null, 1, "A");
        update(null, 2, "B");
        assertThat(tp.checkEndOfDay()).isFalse();

        now.set(nanos(DAY, LocalTime.of(17, 0, 1)));
        assertThat(tp.checkEndOfDay()).isTrue();
        final Frames out = Frames.drain(sub);
        assertThat(out.types()).as("what was pending goes out before the day ends").containsExactly("update", "end-of-day");
        assertThat(out.frames().get(1).epochDay()).isEqualTo((int) DAY.toEpochDay());
        assertThat(out.frames().get(1).sequence()).isEqualTo(2);
        assertThat(tp.date()).isEqualTo(DAY.plusDays(1));
        assertThat(tp.nextEndOfDayNanos()).isEqualTo(nanos(DAY.plusDays(1), LocalTime.of(17, 0)));
        assertThat(Files.isDirectory(dir.resolve("journal").resolve(DAY.plusDays(1).toString()))).isTrue();
        assertThat(tp.status(null).tables().get(0).rows()).isZero();
        assertThat(counter("tick.tp.eod")).isEqualTo(1);
        assertThat(tp.checkEndOfDay()).isFalse();

        update(null, 3, "C");
        tp.onTimer();
        assertThat(Frames.drain(sub).sequences()).containsExactly(3L);
        assertThat(journal(DAY)).hasSize(2);
        assertThat(journal(DAY.plusDays(1))).containsExactly("3:C/3000");
    }

    /** Takes (and releases) what waits in a stalled channel's outbound buffer: "type" or "update seq", in order. */
    private static List<String> take(final StalledChannel ch) {
        return Frames.take(ch).frames().stream().map(f -> f.type().equals("update") ? "update " + f.sequence() : f.type()).toList();
    }

    @Test
    void shouldKeepAnEndOfDayCatchUpWithinTheSocketsBoundAndEndTheDayForItWhenItHasReadTheDay() {
        now.set(nanos(DAY, LocalTime.of(16, 0)));
        start(settings());
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        for (int id = 1; id <= 100; id++) {
            update(null, id, syms); // ~3 KiB each: ~300 KiB of history
        }
        final StalledChannel slow = new StalledChannel();
        subscribe(slow, 0, List.of(), List.of());
        final long queued = tp.status(null).subscribers().get(0).backlogBytes();
        assertThat(queued).as("catch-up stops at the socket's high-water mark").isLessThan(100 * 1024);
        assertThat(tp.status(null).subscribers().get(0).state()).isEqualTo("catching-up");

        tp.onEndOfDay();
        assertThat(tp.status(null).subscribers().get(0).backlogBytes()).as("end of day does not push the rest of the day")
            .isEqualTo(queued);
        update(null, 101, "Y"); // the new day's first update
        final List<String> seen = new ArrayList<>(take(slow));
        int turns = 0;
        while (!seen.contains("catch-up-done") && turns++ < 1000) {
            tp.onWritable(slow);
            tp.catchUpTurn();
            seen.addAll(take(slow));
        }
        final List<String> expected = new ArrayList<>(List.of("subscribed"));
        for (long seq = 1; seq <= 100; seq++) {
            expected.add("update " + seq);
        }
        expected.add("end-of-day");
        expected.add("update 101");
        expected.add("catch-up-done");
        assertThat(seen).as("the whole ended day, its end, then the new day").isEqualTo(expected);
        assertThat(turns).as("in many turns, at the socket's pace").isGreaterThan(2);
        slow.close();
    }

    @Test
    void shouldDisconnectASubscriberWhoseBacklogPassesTheLimitWithoutHoldingUpOthers() throws Exception {
        start(settings().withMaxFrameLength(16 * 1024).withBacklog(16 * 1024, 32 * 1024).withSlowSubscribers(SlowSubscribers.DISCONNECT));
        final StalledChannel stalled = new StalledChannel();
        stalled.freezeTime();
        subscribe(stalled, -1, List.of(), List.of());
        final EmbeddedChannel healthy = subscribe(-1, List.of());
        Frames.drain(healthy);
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        int sent = 0;
        while (tp.status(null).subscribers().get(0).state().equals("live") && sent < 1000) {
            update(null, ++sent, syms);
            tp.flush();
        }
        assertThat(tp.status(null).subscribers().get(0).state()).as("closing by the slow-subscriber policy").isEqualTo("closing");
        assertThat(sent).as("after about 32 KiB of backlog").isBetween(8, 20);
        assertThat(counter("tick.tp.subscriber.alerts")).as("alert level passed first, once").isEqualTo(1);
        assertThat(counter("tick.tp.subscribers.disconnected|reason=slow")).isEqualTo(1);
        assertThat(counter("tick.tp.errors|code=slow-subscriber")).isEqualTo(1);

        // the backlog is dropped: what waits for the socket is the frame at its head (it may be partly on the wire; this
        // stalled peer never took even the SUBSCRIBED answer) and, right behind it, the error
        final List<String> queued = new ArrayList<>();
        stalled.unsafe().outboundBuffer().forEachFlushedMessage(m -> {
            final ByteBuf b = (ByteBuf) m;
            queued.add(io.jtick.core.wire.MessageType.name(ControlFrames.type(b, b.readerIndex())));
            return true;
        });
        assertThat(queued).containsExactly("subscribed", "error");
        assertThat(stalled.isOpen()).as("open while the error may still leave").isTrue();
        stalled.advanceTimeBy(BacklogPolicy.ERROR_GRACE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        stalled.runScheduledPendingTasks();
        assertThat(stalled.isOpen()).as("closed after the grace period").isFalse();
        tp.onDisconnect(stalled); // what the connection layer does on the loop's next turn (Netty fires channelInactive later)
        assertThat(tp.subscriberCount()).isEqualTo(1);
        assertThat(counter("tick.tp.subscribers.disconnected|reason=any")).isEqualTo(1);

        update(null, ++sent, "Y");
        tp.flush();
        final Frames out = Frames.drain(healthy);
        assertThat(out.sequences()).hasSize(sent);
        assertThat(out.rows()).hasSize((sent - 1) * 100 + 1);
    }

    @ParameterizedTest
    @EnumSource(PublishMode.class)
    void shouldServeASubscriberPastTheLimitFromTheJournalThenLiveAgainWithNoRowLostOrTwice(final PublishMode mode) {
        // the limit is above the socket's high-water mark (64 KiB on an embedded channel), as the default 64 MB is above the TP's 4 MiB
        start(settings().withMode(mode, Duration.ofSeconds(1)).withMaxFrameLength(16 * 1024).withBacklog(64 * 1024, 128 * 1024));
        final StalledChannel slow = new StalledChannel();
        subscribe(slow, -1, List.of(), List.of());
        final EmbeddedChannel healthy = subscribe(-1, List.of());
        Frames.drain(healthy);
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        final List<String> expected = new ArrayList<>();
        final java.util.function.IntConsumer send = id -> {
            assertThat(update(null, id, syms)).isEqualTo(ErrorCode.NONE);
            if (mode == PublishMode.ZERO_LATENCY) {
                tp.flush();
            } else {
                tp.onTimer();
            }
            for (int r = 0; r < syms.length; r++) {
                expected.add("X/" + (id * 1000L + r));
            }
        };
        int sent = 0;
        while (tp.status(null).subscribers().get(0).state().equals("live") && sent < 200) {
            send.accept(++sent);
        }
        assertThat(tp.status(null).subscribers().get(0).state()).isEqualTo("from-journal");
        assertThat(sent).as("after about 128 KiB of ~3 KiB updates").isBetween(30, 60);
        final long queued = tp.status(null).subscribers().get(0).backlogBytes();
        for (int k = 0; k < 80; k++) {
            send.accept(++sent);
        }
        assertThat(tp.status(null).subscribers().get(0).backlogBytes()).as("no live update queued for it past the limit").isEqualTo(queued);
        assertThat(counter("tick.tp.subscriber.journal.switches")).isEqualTo(1);
        assertThat(counter("tick.tp.subscribers.disconnected|reason=slow")).isZero();
        assertThat(counter("tick.tp.errors|code=slow-subscriber")).isZero();

        // it reads again: what was queued, then the journal at its socket's pace while updates go on arriving, then live updates
        final List<Frames.Frame> seen = new ArrayList<>(Frames.take(slow).frames());
        int turns = 0;
        while (!tp.status(null).subscribers().get(0).state().equals("live") && turns++ < 1000) {
            seen.addAll(readAgain(slow));
            send.accept(++sent);
        }
        assertThat(tp.status(null).subscribers().get(0).state()).isEqualTo("live");
        assertThat(turns).as("in several turns, at the socket's pace").isGreaterThan(2);
        send.accept(++sent);
        seen.addAll(Frames.take(slow).frames());
        final Frames all = new Frames(seen);
        assertThat(all.types().get(0)).isEqualTo("subscribed");
        assertThat(all.types()).as("nothing but updates after SUBSCRIBED: no error, no CATCH_UP_DONE").containsOnly("subscribed", "update");
        assertThat(all.rows()).as("every row once, in order").isEqualTo(expected);
        assertThat(Frames.drain(healthy).rows()).isEqualTo(expected);
        assertThat(counter("tick.tp.subscriber.journal.switches")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(PublishMode.class)
    void shouldEndTheDayForASubscriberServedFromTheJournalWhenItHasReadTheDay(final PublishMode mode) {
        now.set(nanos(DAY, LocalTime.of(16, 0)));
        start(settings().withMode(mode, Duration.ofSeconds(1)).withMaxFrameLength(64 * 1024).withBacklog(64 * 1024, 128 * 1024));
        final StalledChannel slow = new StalledChannel();
        subscribe(slow, -1, List.of(), List.of());
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        final List<String> dayRows = new ArrayList<>();
        int sent = 0;
        while (tp.status(null).subscribers().get(0).backlogBytes() < 75 * 1024) {
            update(null, ++sent, syms);
            if (mode == PublishMode.ZERO_LATENCY) {
                tp.flush();
            } else {
                tp.onTimer();
            }
        }
        // ~57 KB more: in the timer modes one batch, which end of day publishes, so it passes the limit there
        for (int k = 0; k < 19; k++) {
            update(null, ++sent, syms);
            tp.flush();
        }
        for (int id = 1; id <= sent; id++) {
            for (int r = 0; r < syms.length; r++) {
                dayRows.add("X/" + (id * 1000L + r));
            }
        }
        tp.onEndOfDay();
        assertThat(tp.status(null).subscribers().get(0).state()).isEqualTo("from-journal");
        update(null, ++sent, "Y"); // the new day's first update
        tp.flush();
        tp.onTimer();
        final List<Frames.Frame> seen = new ArrayList<>();
        int turns = 0;
        while (!tp.status(null).subscribers().get(0).state().equals("live") && turns++ < 1000) {
            seen.addAll(readAgain(slow));
        }
        seen.addAll(Frames.take(slow).frames());
        final Frames all = new Frames(seen);
        final int end = all.types().indexOf("end-of-day");
        assertThat(end).as("END_OF_DAY, once it has read the day " + all.types()).isPositive();
        assertThat(new Frames(seen.subList(0, end)).rows()).as("the whole ended day first").isEqualTo(dayRows);
        assertThat(new Frames(seen.subList(end + 1, seen.size())).rows()).as("then the new day").containsExactly("Y/" + sent * 1000L);
        assertThat(all.types()).as("and no CATCH_UP_DONE").containsOnly("subscribed", "update", "end-of-day");
    }

    /**
     * A stalled subscriber reads everything waiting for it; the tickerplant hears of it as it would from a socket (told only
     * when the channel turns writable), then takes a catch-up turn. Returns what it read.
     */
    private List<Frames.Frame> readAgain(final StalledChannel ch) {
        final boolean writable = ch.isWritable();
        final List<Frames.Frame> read = Frames.take(ch).frames();
        if (!writable && ch.isWritable()) {
            tp.onWritable(ch);
        }
        tp.catchUpTurn();
        return read;
    }

    @Test
    void shouldFlagASubscriberOverTheAlertLevelOncePerEpisodeAndKeepIt() {
        start(settings().withMaxFrameLength(16 * 1024).withBacklog(8 * 1024, 1 << 20));
        final StalledChannel stalled = new StalledChannel();
        subscribe(stalled, -1, List.of(), List.of());
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        for (int k = 1; k <= 10; k++) {
            update(null, k, syms);
            tp.flush();
        }
        final TickerplantStatus.SubscriberStatus s = tp.status(null).subscribers().get(0);
        assertThat(s.backlogBytes()).isGreaterThan(8 * 1024);
        assertThat(s.alert()).isTrue();
        assertThat(s.state()).as("under the disconnect level: kept").isEqualTo("live");
        assertThat(tp.status(null).subscriberAlerts()).as("one episode, one alert").isEqualTo(1);
        assertThat(counter("tick.tp.subscribers.disconnected|reason=slow")).isZero();

        // the subscriber drains (its socket takes everything): the episode ends at the next heartbeat, a new one counts again
        while (stalled.unsafe().outboundBuffer().current() != null) {
            stalled.unsafe().outboundBuffer().remove();
        }
        tp.heartbeat();
        assertThat(tp.status(null).subscribers().get(0).alert()).isFalse();
        for (int k = 11; k <= 20; k++) {
            update(null, k, syms);
            tp.flush();
        }
        assertThat(tp.status(null).subscriberAlerts()).isEqualTo(2);
        stalled.close();
    }

    // ------------------------------------------------------------------ numbered feeds

    /** A numbered feed's connection as the tickerplant sees it: what it was told. */
    private static final class NumberedFeed implements UpdateSource {
        final List<Long> acks = new ArrayList<>();
        final List<String> refusals = new ArrayList<>();
        FeedRegistry.Feed feed;

        NumberedFeed hello(final Tickerplant tp, final String name) {
            feed = tp.onFeedHello(this, name);
            tp.flush(); // the end of the read batch, where the acknowledgement goes out
            return this;
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
        }
    }

    /** Trade update {@code id} (sizes id*1000+r), carrying the feed's number {@code number}. */
    private ErrorCode numbered(final NumberedFeed from, final long number, final long id, final String... syms) {
        final ByteBuf f = TestSupport.tradeFrame(TRADE, id, syms);
        try {
            f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, number);
            final ErrorCode code = tp.onUpdate(from, f, f.readerIndex(), f.readableBytes());
            tp.flush(); // each update its own read batch, as a paced feed's
            return code;
        } finally {
            f.release();
        }
    }

    /** Quote update {@code id} (bsize id*1000), carrying the feed's number. */
    private ErrorCode numberedQuote(final NumberedFeed from, final long number, final long id) {
        final ByteBuf f = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        try {
            final io.jtick.core.wire.UpdateEncoder enc = new io.jtick.core.wire.UpdateEncoder();
            enc.wrap(f, SCHEMAS.get("quote"), 1, 2);
            enc.addSym("Q".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            enc.timestamp(0, 0, 1_000_000_000L * id);
            enc.sym(0, 0);
            enc.float64(2, 0, 1.0);
            enc.float64(3, 0, 1.5);
            enc.int64(4, 0, id * 1000);
            enc.int64(5, 0, 1);
            enc.finish();
            f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, number);
            return tp.onUpdate(from, f, f.readerIndex(), f.readableBytes());
        } finally {
            f.release();
        }
    }

    /** "feed:number" of every journal entry of the day that has a feed trailer, in journal order. */
    private List<String> feedTrailers(final LocalDate date) {
        final List<String> out = new ArrayList<>();
        io.jtick.core.journal.Journal.scanFeeds(dir.resolve("journal"), date,
            (feed, first, last) -> out.add(feed + ":" + first + (last == first ? "" : ".." + last)));
        return out;
    }

    @Test
    void shouldJournalANumberedFeedsNumbersDropWhatItResendsAndAnswerHelloWithTheLastAfterARestart() {
        start(settings().withFeedAcks(2, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final NumberedFeed feed = new NumberedFeed().hello(tp, "md-1");
        assertThat(feed.acks).as("HELLO answered: nothing journalled yet").containsExactly(0L);

        assertThat(numbered(feed, 1, 1, "A")).isEqualTo(ErrorCode.NONE);
        assertThat(numbered(feed, 2, 2, "B")).isEqualTo(ErrorCode.NONE);
        assertThat(numbered(feed, 3, 3, "C")).isEqualTo(ErrorCode.NONE);
        assertThat(feed.acks).as("acknowledged every 2 journalled updates").containsExactly(0L, 2L);
        // a resend after a reconnect: 2 and 3 are journalled already
        assertThat(numbered(feed, 2, 2, "B")).isEqualTo(ErrorCode.NONE);
        assertThat(numbered(feed, 3, 3, "C")).isEqualTo(ErrorCode.NONE);
        assertThat(numbered(feed, 4, 4, "D")).isEqualTo(ErrorCode.NONE);
        tp.flush();
        assertThat(Frames.drain(sub).rows()).as("each once").containsExactly("A/1000", "B/2000", "C/3000", "D/4000");
        assertThat(counter("tick.tp.feed.duplicates")).isEqualTo(2);
        assertThat(journal(DAY)).containsExactly("1:A/1000", "2:B/2000", "3:C/3000", "4:D/4000");
        assertThat(feedTrailers(DAY)).containsExactly("md-1:1", "md-1:2", "md-1:3", "md-1:4");
        assertThat(tp.status(null).numberedFeeds()).singleElement().satisfies(f -> {
            assertThat(f.name()).isEqualTo("md-1");
            assertThat(f.connected()).isTrue();
            assertThat(f.journalled()).isEqualTo(4);
            assertThat(f.duplicates()).isEqualTo(2);
        });

        // the TP stops (as if killed: nothing is flushed beyond the journal) and starts again on the same journal
        tp.close();
        start(settings());
        final NumberedFeed again = new NumberedFeed().hello(tp, "md-1");
        assertThat(again.acks).as("the journal's feed trailers told it").containsExactly(4L);
        assertThat(new NumberedFeed().hello(tp, "other").acks).containsExactly(0L);
        assertThat(again.refusals).isEmpty();

        // a feed that skips numbers: taken, counted, and what it skipped is given up
        assertThat(numbered(again, 7, 7, "G")).isEqualTo(ErrorCode.NONE);
        assertThat(counter("tick.tp.feed.gaps")).isEqualTo(1);
        assertThat(numbered(again, 5, 5, "E")).as("below what it already sent on this connection").isEqualTo(ErrorCode.NONE);
        assertThat(journal(DAY)).hasSize(5).last().isEqualTo("5:G/7000");
        assertThat(new NumberedFeed().hello(tp, "md-1").acks).containsExactly(7L);
        assertThat(again.refusals).as("the older connection is closed when the feed says hello again").containsExactly("feed-replaced");

        // a numbered feed's update without its number is refused
        final NumberedFeed careless = new NumberedFeed().hello(tp, "careless");
        assertThat(numbered(careless, 0, 9, "Z")).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(tp.lastError()).contains("without its number").contains("feed=careless");
    }

    @Test
    void shouldJournalWhatAFeedHasWaitingForTheTimerBeforeAnsweringItsHelloInTimerLogPublishMode() {
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final NumberedFeed first = new NumberedFeed().hello(tp, "md-2");
        numbered(first, 1, 1, "A");
        numbered(first, 2, 2, "B");
        assertThat(journal(DAY)).as("waiting for the timer").isEmpty();
        final NumberedFeed second = new NumberedFeed().hello(tp, "md-2");
        assertThat(second.acks).as("journalled first, then answered").containsExactly(2L);
        assertThat(journal(DAY)).containsExactly("1:A/1000,B/2000");
        assertThat(feedTrailers(DAY)).containsExactly("md-2:1..2");
        assertThat(first.refusals).containsExactly("feed-replaced");
        numbered(second, 1, 1, "A");
        numbered(second, 3, 3, "C");
        tp.onTimer();
        assertThat(Frames.drain(sub).rows()).containsExactly("A/1000", "B/2000", "C/3000");
    }

    @Test
    void shouldTrackNumbersJournalledOutOfOrderWhenATimerTickFailsHalfWay() {
        // log+publish journals each table's batch in turn as one entry: trade 1 and 3, then quote 2, which fails
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final NumberedFeed feed = new NumberedFeed().hello(tp, "md-3");
        numbered(feed, 1, 1, "A");
        numberedQuote(feed, 2, 2);
        numbered(feed, 3, 3, "C");
        fault.failAfter(1);
        tp.onTimer();
        assertThat(feed.refusals).containsExactly("journal-failure");
        assertThat(feedTrailers(DAY)).as("one entry, two runs: 2 is not in it").containsExactly("md-3:1", "md-3:3");
        assertThat(tp.status(null).numberedFeeds().get(0).journalled()).as("all up to 1").isEqualTo(1);
        assertThat(tp.status(null).numberedFeeds().get(0).highest()).isEqualTo(3);

        // the same after a restart, from the journal alone
        fault.heal();
        tp.close();
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub2 = subscribe(-1, List.of());
        final NumberedFeed back = new NumberedFeed().hello(tp, "md-3");
        assertThat(back.acks).containsExactly(1L);
        numberedQuote(back, 2, 2);
        numbered(back, 3, 3, "C");
        tp.onTimer();
        assertThat(counter("tick.tp.feed.duplicates")).as("3 was journalled before the failure").isEqualTo(1);
        assertThat(feedTrailers(DAY)).containsExactly("md-3:1", "md-3:3", "md-3:2");
        assertThat(Frames.drain(sub2).updates()).as("the quote only").singleElement()
            .satisfies(u -> assertThat(u.sequence()).isEqualTo(2));
        assertThat(tp.status(null).numberedFeeds().get(0).journalled()).isEqualTo(3);
        Frames.drain(sub);
    }

    @Test
    void shouldNotClaimAFirstSeenFeedsLowerNumberAfterACrashBetweenTheEntriesOfOneTick() {
        // a feed seen for the first time: #1 a quote, #2 a trade; the trade entry is written, the TP dies before the quote's
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final NumberedFeed feed = new NumberedFeed().hello(tp, "md-4");
        numberedQuote(feed, 1, 1);
        numbered(feed, 2, 2, "B");
        fault.failAfter(1);
        tp.onTimer();
        assertThat(feedTrailers(DAY)).containsExactly("md-4:2");

        fault.heal();
        tp.close();
        start(settings().withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = subscribe(-1, List.of());
        final NumberedFeed back = new NumberedFeed().hello(tp, "md-4");
        assertThat(back.acks).as("1 is not in the journal: the feed resends from it").containsExactly(0L);
        numberedQuote(back, 1, 1);
        numbered(back, 2, 2, "B");
        tp.onTimer();
        assertThat(Frames.drain(sub).updates()).as("the quote, once; the trade was journalled already").singleElement()
            .satisfies(u -> assertThat(u.rows()).singleElement().asString().startsWith("Q/"));
        assertThat(counter("tick.tp.feed.duplicates")).isEqualTo(1);
        assertThat(tp.status(null).numberedFeeds().get(0).journalled()).isEqualTo(2);
    }

    @Test
    void shouldGoOnAfterAFeedsLastNumberWhenItsEarlierNumbersAreOnDaysTheRestartDoesNotRead() {
        // three days: 1-2, 3-4, 5-6; a restart reads the last two, and the numbers below 3 are on the first
        now.set(nanos(DAY, LocalTime.of(16, 0)));
        start(settings());
        NumberedFeed feed = new NumberedFeed().hello(tp, "md-5");
        long n = 0;
        for (int day = 0; day < 3; day++) {
            assertThat(numbered(feed, ++n, n, "A")).isEqualTo(ErrorCode.NONE);
            assertThat(numbered(feed, ++n, n, "A")).isEqualTo(ErrorCode.NONE);
            if (day < 2) {
                tp.onEndOfDay();
            }
        }
        final LocalDate last = tp.date();
        tp.close();
        now.set(nanos(last, LocalTime.of(16, 0)));
        start(settings());
        final EmbeddedChannel sub = subscribe(-1, List.of());
        feed = new NumberedFeed().hello(tp, "md-5");
        assertThat(feed.acks).as("HELLO answers its last number, not the gap below the days read").containsExactly(6L);
        assertThat(numbered(feed, 7, 7, "B")).isEqualTo(ErrorCode.NONE);
        assertThat(Frames.drain(sub).rows()).as("its next update is journalled and published, not dropped as a resend")
            .containsExactly("B/7000");
        assertThat(counter("tick.tp.feed.duplicates")).isZero();
        assertThat(feedTrailers(last)).containsExactly("md-5:5", "md-5:6", "md-5:7");
    }

    @Test
    void shouldRefuseTimerLogPublishOnAChainedTickerplant() {
        assertThatThrownBy(() -> settings().withUpstream("127.0.0.1", 5010)
            .withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)).validate())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chained").hasMessageContaining("timer-publish");
        start(settings().withUpstream("127.0.0.1", 5010));
        assertThatThrownBy(() -> tp.setMode(PublishMode.TIMER_LOG_PUBLISH, 100_000_000L))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chained");
        assertThat(tp.mode()).isEqualTo(PublishMode.ZERO_LATENCY);
        tp.setMode(PublishMode.TIMER_PUBLISH, 100_000_000L);
        assertThat(tp.mode()).isEqualTo(PublishMode.TIMER_PUBLISH);
    }
}
