package io.jtick.core.replay;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.ReplayRows;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The replay port over real partitions on every tier: content, order, filters, errors, cancel. */
@ExtendWith(LeakCheck.class)
class ReplayServerTest {
    static final LocalDate PLAIN = LocalDate.of(2026, 3, 2);
    static final LocalDate LZ4 = LocalDate.of(2026, 3, 3);
    static final LocalDate ZSTD = LocalDate.of(2026, 3, 4);
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @TempDir
    Path root;

    private HistoricalDatabase hdb;
    private ReplayServer server;
    private final TickMetrics metrics = new TickMetrics();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (hdb != null) {
            hdb.close();
        }
    }

    private void start(final ReplaySettings settings) throws IOException {
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, settings, metrics).start();
    }

    private ReplaySettings small() {
        return ReplaySettings.defaults(root).withWindowRows(2048).withThreads(2);
    }

    private static ControlFrames.Replay request(final List<String> tables, final LocalDate from, final LocalDate to) {
        return ControlFrames.Replay.of(tables, (int) from.toEpochDay(), (int) to.toEpochDay()).withRowsPerUpdate(700);
    }

    @Test
    void shouldReplayEveryRowOfAPartitionInTimeOrderOnEveryTier() throws Exception {
        final MemorySegment plain = SyntheticDay.segment("trade", PLAIN, 20_000, 40, 1);
        final MemorySegment lz4 = SyntheticDay.segment("trade", LZ4, 20_000, 40, 2);
        final MemorySegment zstd = SyntheticDay.segment("trade", ZSTD, 20_000, 40, 3);
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(plain));
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("lz4"))).write(LZ4, List.of(lz4));
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/zstd:3"))).write(ZSTD, List.of(zstd));
        start(small());

        for (final var day : List.of(List.of(PLAIN, plain), List.of(LZ4, lz4), List.of(ZSTD, zstd))) {
            final LocalDate date = (LocalDate) day.get(0);
            final MemorySegment source = (MemorySegment) day.get(1);
            final ReplayRows.Consumer c = ReplayRows.replay(server.port(), request(List.of("trade"), date, date));
            assertThat(c.errors).as("errors on %s", date).isEmpty();
            assertThat(c.rows).as("rows of %s", date).containsExactlyElementsOf(ReplayRows.expected(List.of(source), null));
            assertThat(c.done.statusName()).isEqualTo("complete");
            assertThat(c.done.rows()).isEqualTo(20_000);
            assertThat(c.done.rowsByTable()).containsEntry("trade", 20_000L);
            assertThat(c.subscribed.journalSequence()).as("rows announced").isEqualTo(20_000);
            assertThat(c.sequenceGaps).isZero();
            assertThat(c.frameRows).allMatch(n -> n <= 700);
        }
        final ReplayRows.Consumer all = ReplayRows.replay(server.port(), request(List.of("trade"), PLAIN, ZSTD));
        final List<String> expected = new ArrayList<>(ReplayRows.expected(List.of(plain), null));
        expected.addAll(ReplayRows.expected(List.of(lz4), null));
        expected.addAll(ReplayRows.expected(List.of(zstd), null));
        assertThat(all.rows).containsExactlyElementsOf(expected);
        assertThat(all.done.rows()).isEqualTo(60_000);
        TestSupport.await("replays ended", Duration.ofSeconds(10), () -> server.activeCount() == 0 && server.streamCount() == 0);
    }

    @Test
    void shouldReplayCompressedDatesRightFromScratchAnEarlierDateLeft() throws Exception {
        // two zstd days of different values: each replay's scratch comes from the one before, holding that day's values
        // outside the rows the new one decodes (other syms, other date)
        final MemorySegment a = SyntheticDay.segment("trade", LZ4, 20_000, 40, 21);
        final MemorySegment b = SyntheticDay.segment("trade", ZSTD, 20_000, 40, 22);
        final EncodingPolicy zstd = EncodingPolicy.uniform(ColumnEncoding.parse("auto/zstd:3"));
        new PartitionWriter(root, zstd).write(LZ4, List.of(a));
        new PartitionWriter(root, zstd).write(ZSTD, List.of(b));
        start(small());
        final List<String> some = List.of("S0002", "S0019", "S0033");
        final long all = 0;
        final long end = LocalTime.of(23, 59).toNanoOfDay();
        for (final var step : List.of(List.of(LZ4, a, List.of()), List.of(ZSTD, b, some), List.of(LZ4, a, List.of("S0005")),
            List.of(ZSTD, b, List.of()), List.of(LZ4, a, some))) {
            final LocalDate date = (LocalDate) step.get(0);
            final MemorySegment source = (MemorySegment) step.get(1);
            @SuppressWarnings("unchecked") final List<String> syms = (List<String>) step.get(2);
            final ControlFrames.Replay r = syms.isEmpty() ? request(List.of("trade"), date, date)
                : request(List.of("trade"), date, date).withSyms(syms);
            final ReplayRows.Consumer c = ReplayRows.replay(server.port(), r);
            final List<String> expected = ReplayRows.expected(List.of(source),
                syms.isEmpty() ? null : List.of(keep(source, date, syms, all, 2 * end)));
            assertThat(expected).as("%s %s", date, syms).isNotEmpty();
            assertThat(c.errors).isEmpty();
            assertThat(c.rows).as("%s %s", date, syms).containsExactlyElementsOf(expected);
            TestSupport.await("replay ended", Duration.ofSeconds(10), () -> server.activeCount() == 0);
        }
        assertThat(server.scratchReused()).as("later dates decoded into scratch files kept from earlier ones").isGreaterThanOrEqualTo(4);
        assertThat(server.scratchKeptBytes()).as("the last date's columns, kept for the next").isPositive();
    }

    @Test
    void shouldMergeTablesByTimeWithEqualTimesInRequestOrder() throws Exception {
        final MemorySegment trade = SyntheticDay.segment("trade", PLAIN, 6_000, 12, 7);
        final MemorySegment quote = SyntheticDay.segment("quote", PLAIN, 9_000, 12, 7);
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(trade, quote));
        start(small());
        final ReplayRows.Consumer tq = ReplayRows.replay(server.port(), request(List.of("trade", "quote"), PLAIN, PLAIN));
        assertThat(tq.rows).containsExactlyElementsOf(ReplayRows.expected(List.of(trade, quote), null));
        assertThat(tq.done.rowsByTable()).containsExactly(java.util.Map.entry("trade", 6_000L), java.util.Map.entry("quote", 9_000L));
        final ReplayRows.Consumer qt = ReplayRows.replay(server.port(), request(List.of("quote", "trade"), PLAIN, PLAIN));
        assertThat(qt.rows).containsExactlyElementsOf(ReplayRows.expected(List.of(quote, trade), null));
        assertThat(qt.rows).isNotEqualTo(tq.rows);
        final long ties = countTies(trade, quote);
        assertThat(ties).as("the days share times, so the tie order matters").isPositive();
    }

    private static long countTies(final MemorySegment a, final MemorySegment b) {
        final Set<Long> times = new java.util.HashSet<>();
        for (int r = 0; r < a.rowCount(); r++) {
            times.add(Cells.time(a, r));
        }
        long n = 0;
        for (int r = 0; r < b.rowCount(); r++) {
            n += times.contains(Cells.time(b, r)) ? 1 : 0;
        }
        return n;
    }

    @Test
    void shouldSendOnlyTheSymsAndTheTimeOfDayAskedFor() throws Exception {
        final MemorySegment plain = SyntheticDay.segment("trade", PLAIN, 20_000, 40, 11);
        final MemorySegment zstd = SyntheticDay.segment("trade", ZSTD, 20_000, 40, 12);
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(plain));
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/zstd:3"))).write(ZSTD, List.of(zstd));
        start(small());
        final List<String> syms = List.of("S0003", "S0017", "S0031", "NOPE");
        final long start = LocalTime.of(10, 0).toNanoOfDay();
        final long end = LocalTime.of(11, 30).toNanoOfDay();
        final ControlFrames.Replay r = request(List.of("trade"), PLAIN, ZSTD).withSyms(syms).withWindow(start, end, "America/New_York");
        final ReplayRows.Consumer c = ReplayRows.replay(server.port(), r);
        final List<String> expected = new ArrayList<>(ReplayRows.expected(List.of(plain), List.of(keep(plain, PLAIN, syms, start, end))));
        expected.addAll(ReplayRows.expected(List.of(zstd), List.of(keep(zstd, ZSTD, syms, start, end))));
        assertThat(expected).hasSizeBetween(100, 5_000);
        assertThat(c.rows).containsExactlyElementsOf(expected);
        assertThat(c.subscribed.journalSequence()).isEqualTo(expected.size());
    }

    private static IntPredicate keep(final MemorySegment s, final LocalDate date, final List<String> syms, final long start,
                                     final long end) {
        final long from = ReplayPlan.instant(date, start, NEW_YORK);
        final long to = ReplayPlan.instant(date, end, NEW_YORK);
        return r -> syms.contains(Cells.sym(s, r)) && Cells.time(s, r) >= from && Cells.time(s, r) < to;
    }

    @Test
    void shouldRefuseBadRequestsWithAnErrorNamingTheProblemAndKeepServing() throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(SyntheticDay.segment("trade", PLAIN, 2_000, 5, 1)));
        start(small());
        assertRefused(request(List.of("nope"), PLAIN, PLAIN), ErrorCode.UNKNOWN_TABLE, "unknown table [table=nope]");
        assertRefused(request(List.of("trade"), LZ4, ZSTD), ErrorCode.BAD_REPLAY, "no partitions in range");
        assertRefused(request(List.of("trade"), ZSTD, PLAIN), ErrorCode.BAD_REPLAY, "date range ends before it starts");
        assertRefused(request(List.of("trade"), PLAIN, PLAIN).withSpeed(0), ErrorCode.BAD_REPLAY, "speed must be a positive number");
        assertRefused(request(List.of("trade"), PLAIN, PLAIN).withSpeed(-2), ErrorCode.BAD_REPLAY, "speed must be a positive number");
        assertRefused(request(List.of("trade"), PLAIN, PLAIN).withWindow(0, 10, "Mars/Olympus"), ErrorCode.BAD_REPLAY, "unknown zone");
        assertRefused(request(List.of("trade"), PLAIN, PLAIN).withRowsPerUpdate(-1), ErrorCode.BAD_REPLAY, "rows per update must be");
        assertThat(server.errors(ErrorCode.BAD_REPLAY)).isEqualTo(6);
        assertThat(server.errors(ErrorCode.UNKNOWN_TABLE)).isEqualTo(1);
        final ReplayRows.Consumer ok = ReplayRows.replay(server.port(), request(List.of("trade"), PLAIN, PLAIN));
        assertThat(ok.done.rows()).isEqualTo(2_000);
        assertThat(ok.errors).isEmpty();
    }

    @Test
    void shouldAskForTheTokenInHelloWhereReadsAreProtectedOnThePort() throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(SyntheticDay.segment("trade", PLAIN, 2_000, 5, 1)));
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, small(), metrics)
            .access(new io.jtick.core.auth.AccessSettings("s3cret-token", io.jtick.core.auth.AccessSettings.Guard.ALWAYS, true)).start();
        final ControlFrames.Replay r = request(List.of("trade"), PLAIN, PLAIN);
        assertRefused(r, ErrorCode.ACCESS_DENIED, "the API token is required [access=read");
        final ReplayRows.Consumer wrong = ReplayRows.replay(server.port(), "s3cret-tokem", r);
        assertThat(wrong.errors).singleElement().asString().startsWith("access-denied: wrong API token").doesNotContain("s3cret");
        assertThat(wrong.rows).isEmpty();
        assertThat(server.errors(ErrorCode.ACCESS_DENIED)).isEqualTo(2);
        final ReplayRows.Consumer ok = ReplayRows.replay(server.port(), "s3cret-token", r);
        assertThat(ok.errors).isEmpty();
        assertThat(ok.done.rows()).isEqualTo(2_000);
        server.close();

        server = new ReplayServer(hdb, small(), metrics)
            .access(new io.jtick.core.auth.AccessSettings("s3cret-token", io.jtick.core.auth.AccessSettings.Guard.ALWAYS, false)).start();
        assertThat(ReplayRows.replay(server.port(), r).done.rows()).as("a replay is a read: open unless reads are protected")
            .isEqualTo(2_000);
    }

    private void assertRefused(final ControlFrames.Replay r, final ErrorCode code, final String message) throws InterruptedException {
        final ReplayRows.Consumer c = ReplayRows.replay(server.port(), r);
        assertThat(c.errors).hasSize(1);
        assertThat(c.errors.get(0)).startsWith(code.tag() + ": ").contains(message);
        assertThat(c.rows).isEmpty();
        assertThat(c.done).isNull();
    }

    @Test
    void shouldEndAReplayThatMeetsACorruptBlockAsFailedNamingFileAndBlock() throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(SyntheticDay.segment("trade", PLAIN, 20_000, 5, 1)));
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(LZ4, List.of(SyntheticDay.segment("trade", LZ4, 2_000, 5, 2)));
        final Path price = root.resolve(PLAIN.toString()).resolve("trade").resolve("price");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(price.toFile(), "rw")) {
            final long at = f.length() / 2;
            f.seek(at);
            final int b = f.read();
            f.seek(at);
            f.write(b ^ 0xff);
        }
        start(small());
        final ReplayRows.Consumer c = ReplayRows.replay(server.port(), request(List.of("trade"), PLAIN, PLAIN));
        assertThat(c.done.statusName()).isEqualTo("failed");
        assertThat(c.done.message()).contains("checksum").contains(price.toString());
        assertThat(c.done.rows()).isEqualTo(c.rows.size()).isLessThan(20_000);
        assertThat(metrics.counter("tick.hdb.replay.ended|status=failed").get()).isEqualTo(1);
        assertThat(metrics.counter("tick.hdb.corrupt.reads").get()).isEqualTo(1);
        final ReplayRows.Consumer ok = ReplayRows.replay(server.port(), request(List.of("trade"), LZ4, LZ4));
        assertThat(ok.done.statusName()).isEqualTo("complete");
        assertThat(ok.rows).hasSize(2_000);
    }

    @Test
    void shouldCancelAReplayWithItsCountsSoFar() throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(PLAIN, List.of(SyntheticDay.segment("trade", PLAIN, 5_000, 5, 1)));
        start(small());
        final ReplayRows.Consumer c = new ReplayRows.Consumer();
        try (io.jtick.core.client.TickClient client = io.jtick.core.client.TickClient.replay(
            io.jtick.core.client.TickClient.Settings.of("127.0.0.1", server.port(), "slow"),
            request(List.of("trade"), PLAIN, PLAIN).withSpeed(1), c, null, io.jtick.core.time.NanoClock.SYSTEM)) {
            client.start();
            TestSupport.await("replay running", Duration.ofSeconds(10), () -> server.activeCount() == 1 && !c.rows.isEmpty());
            final long id = server.replays().get(0).id();
            assertThat(server.cancel(id, "stopped by the test")).isTrue();
            c.awaitEnd(Duration.ofSeconds(10));
        }
        assertThat(c.done.statusName()).isEqualTo("cancelled");
        assertThat(c.done.message()).isEqualTo("stopped by the test");
        assertThat(c.done.rows()).isEqualTo(c.rows.size()).isLessThan(5_000);
        assertThat(server.replays().get(0).state()).isEqualTo("cancelled");
        assertThat(server.cancel(12345, "none")).isFalse();
    }
}
