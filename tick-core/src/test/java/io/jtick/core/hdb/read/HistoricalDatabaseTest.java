package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class HistoricalDatabaseTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);
    private static final LocalDate D2 = LocalDate.of(2026, 9, 2);

    @TempDir
    Path root;

    private final TickMetrics metrics = new TickMetrics();
    private HistoricalDatabase hdb;

    @AfterEach
    void close() {
        if (hdb != null) {
            hdb.close();
        }
    }

    private MemorySegment write(final LocalDate date, final int rows, final long seed) throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", date, rows, 20, seed);
        new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE).write(date, List.of(trade));
        return trade;
    }

    @Test
    void shouldLoadListAndQueryPartitions() throws IOException {
        final MemorySegment day1 = write(D1, 3_000, 1);
        write(D2, 4_000, 2);
        hdb = new HistoricalDatabase(root, metrics);
        final HistoricalDatabase.ReloadReport report = hdb.reload();
        assertThat(report.partitions()).isEqualTo(2);
        assertThat(report.opened()).containsExactly("2026-09-01/trade", "2026-09-02/trade");
        final List<HistoricalDatabase.PartitionInfo> parts = hdb.partitions();
        assertThat(parts).extracting(HistoricalDatabase.PartitionInfo::date).containsExactly(D1, D2);
        final HistoricalDatabase.TableInfo t1 = parts.get(0).tables().get(0);
        assertThat(t1.rows()).isEqualTo(3_000);
        assertThat(t1.columns()).extracting(HistoricalDatabase.ColumnInfo::name).containsExactly("time", "sym", "price", "size", "cond");
        assertThat(t1.columns().get(2).encoding()).isEqualTo("none");
        assertThat(t1.columns().get(2).rawBytes()).isEqualTo(3_000 * 8);

        final QueryEngine engine = new QueryEngine();
        final PartitionSource source = new PartitionSource(hdb);
        assertThat(engine.query("{\"table\":\"trade\"}", source).rowCount()).isEqualTo(7_000);
        final ResultTable one = engine.query("{\"table\":\"trade\",\"dates\":\"2026-09-01\",\"where\":{\"sym\":\"S0003\"},"
            + "\"select\":[\"date\",\"sym\",\"price\"]}", source);
        assertThat(one.columns()).containsExactly("date", "sym", "price");
        final List<Integer> expected = Cells.symRows(day1, "S0003");
        assertThat(one.rowCount()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(one.rows().get(i)).containsExactly(D1.toEpochDay(), "S0003", Cells.number(day1, 2, expected.get(i)));
        }
        final long from = Cells.time(day1, 1_000);
        final long to = Cells.time(day1, 2_000);
        final ResultTable window = engine.query("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-09-01\",\"to\":\"2026-09-02\"},"
            + "\"where\":{\"sym\":[\"S0003\",\"S0007\"],\"time\":{\">=\":" + from + ",\"<=\":" + to + "}},\"select\":[\"time\"]}",
            source);
        long expectedCount = 0;
        for (int r = 0; r < day1.rowCount(); r++) {
            final String sym = Cells.sym(day1, r);
            final long t = Cells.time(day1, r);
            if ((sym.equals("S0003") || sym.equals("S0007")) && t >= from && t <= to) {
                expectedCount++;
            }
        }
        assertThat(window.rowCount()).isEqualTo((int) expectedCount);
        assertThat(engine.query("{\"table\":\"trade\",\"limit\":3500}", source).rowCount()).isEqualTo(3_500);

        assertThatThrownBy(() -> engine.query("{\"table\":\"nope\"}", source))
            .isInstanceOf(QueryException.class).hasMessage("unknown table [table=nope]");
        assertThatThrownBy(() -> engine.query("{\"table\":\"trade\",\"select\":[\"bid\"]}", source))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("unknown column [table=trade, column=bid]");
        assertThatThrownBy(() -> engine.query("{\"table\":\"trade\",\"fromDate\":\"2026-09-02\",\"toDate\":\"2026-09-01\"}", source))
            .isInstanceOf(QueryException.class).hasMessageContaining("from date is after to date");
    }

    @Test
    void shouldPickUpNewAndDroppedDatesAndKeepStateOnCorruptReload() throws IOException {
        write(D1, 500, 1);
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        write(D2, 600, 2);
        final HistoricalDatabase.ReloadReport r = hdb.reload();
        assertThat(r.opened()).containsExactly("2026-09-02/trade");
        assertThat(hdb.dates()).containsExactly(D1, D2);
        PartitionStore.deleteRecursively(root.resolve("2026-09-01"));
        assertThat(hdb.reload().dropped()).containsExactly("2026-09-01/trade");
        assertThat(hdb.dates()).containsExactly(D2);

        write(D1, 500, 3);
        final Path meta = root.resolve("2026-09-01/trade/.sym");
        try (FileChannel ch = FileChannel.open(meta, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {9, 9, 9}), 14);
        }
        assertThatThrownBy(hdb::reload).isInstanceOf(CorruptPartitionException.class)
            .hasMessageContaining("file=" + meta).hasMessageContaining("sym index checksum mismatch");
        assertThat(hdb.dates()).containsExactly(D2);
    }

    @Test
    void shouldReportCorruptBlockToQueryAndCountIt() throws IOException {
        write(D1, 5_000, 1);
        final Path price = root.resolve("2026-09-01/trade/price");
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        try (FileChannel ch = FileChannel.open(price, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 64 + 8 * 3);
        }
        assertThatThrownBy(() -> new QueryEngine(metrics, QueryLimits.DEFAULT, 1).query("{\"table\":\"trade\",\"select\":[\"price\"]}",
            new PartitionSource(hdb)))
            .isInstanceOf(UncheckedIOException.class).cause().isInstanceOf(CorruptPartitionException.class)
            .hasMessageContaining("file=" + price).hasMessageContaining("block=0");
        assertThat(metrics.counters().get("tick.hdb.corrupt.reads").get()).isEqualTo(1);
    }

    private MemorySegment write(final LocalDate date, final int rows, final long seed, final EncodingPolicy policy) throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", date, rows, 20, seed);
        new PartitionWriter(root, policy, 4096, 2, PartitionWriter.WriteHook.NONE).write(date, List.of(trade));
        return trade;
    }

    /** Bytes of values stored in a table directory's column files (what a preload reads). */
    private static long storedBytes(final Path table) throws IOException {
        long n = 0;
        try (Stream<Path> files = java.nio.file.Files.list(table)) {
            for (final Path f : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
                if (io.jtick.core.schema.TableSchema.trade(0).indexOf(f.getFileName().toString()) < 0) {
                    continue;
                }
                try (ColumnFile cf = ColumnFile.open(f, null, -1)) {
                    n += cf.storedBytes();
                }
            }
        }
        return n;
    }

    private void awaitPreload() throws InterruptedException {
        assertThat(hdb.awaitPreload(Duration.ofSeconds(30))).as("preload finished").isTrue();
    }

    @Test
    void shouldPreloadOnlyTheNewestDaysTablesEachReloadOpens() throws Exception {
        write(D1, 3_000, 1);
        write(D2, 4_000, 2, EncodingPolicy.uniform(ColumnEncoding.parse("auto/lz4")));
        DecodedBlockCache.shared().clear();
        hdb = new HistoricalDatabase(root, metrics);
        hdb.preloadDays(1);
        hdb.reload();
        awaitPreload();
        final long d2 = storedBytes(root.resolve("2026-09-02/trade"));
        assertThat(d2).isPositive();
        assertThat(metrics.counters().get("tick.hdb.preload.bytes").get()).isEqualTo(d2);

        final long misses = DecodedBlockCache.shared().misses();
        final long hits = DecodedBlockCache.shared().hits();
        final QueryEngine engine = new QueryEngine(metrics, QueryLimits.DEFAULT, 1);
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2026-09-02\",\"where\":{\"sym\":\"S0003\"},"
            + "\"select\":[\"time\",\"price\",\"size\"]}", new PartitionSource(hdb)).rowCount()).isPositive();
        assertThat(DecodedBlockCache.shared().misses()).as("the lz4 day's columns were decoded into the cache").isEqualTo(misses);
        assertThat(DecodedBlockCache.shared().hits()).isGreaterThan(hits);

        hdb.reload();
        awaitPreload();
        assertThat(metrics.counters().get("tick.hdb.preload.bytes").get()).as("nothing new opened").isEqualTo(d2);

        final LocalDate d3 = D2.plusDays(1);
        write(d3, 2_000, 3);
        hdb.reload();
        awaitPreload();
        assertThat(metrics.counters().get("tick.hdb.preload.bytes").get())
            .isEqualTo(d2 + storedBytes(root.resolve("2026-09-03/trade")));
        assertThat(new QueryEngine(metrics, QueryLimits.DEFAULT, 1).query("{\"table\":\"trade\"}", new PartitionSource(hdb))
            .rowCount()).isEqualTo(9_000);
    }

    @Test
    void shouldCountCorruptBlockFoundByPreloadAndKeepTheDayListed() throws Exception {
        write(D1, 5_000, 1);
        write(D2, 5_000, 2);
        for (final String day : List.of("2026-09-01", "2026-09-02")) {
            try (FileChannel ch = FileChannel.open(root.resolve(day + "/trade/price"), StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 64 + 8 * 3);
            }
        }
        hdb = new HistoricalDatabase(root, metrics);
        hdb.preloadDays(1);
        hdb.reload();
        awaitPreload();
        assertThat(metrics.counters().get("tick.hdb.corrupt.reads").get()).as("only the newest day is preloaded").isEqualTo(1);
        assertThat(hdb.dates()).containsExactly(D1, D2);
        assertThatThrownBy(() -> new QueryEngine(metrics, QueryLimits.DEFAULT, 1).query(
            "{\"table\":\"trade\",\"select\":[\"price\"],\"dates\":\"2026-09-02\"}", new PartitionSource(hdb)))
            .isInstanceOf(UncheckedIOException.class).cause().isInstanceOf(CorruptPartitionException.class);
    }

    @Test
    void shouldReleaseEveryPreloadedTableWhenClosedWithPreloadsQueued() throws Exception {
        hdb = new HistoricalDatabase(root, metrics);
        hdb.preloadDays(1);
        final java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        hdb.preloadExecutor().execute(() -> {
            busy.countDown();
            try {
                go.await();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        busy.await();
        for (int d = 0; d < 3; d++) {
            write(D1.plusDays(d), 2_000, d);
            hdb.reload();
        }
        hdb.close();
        go.countDown();
        // the three queued preloads run only to release their tables (LeakCheck: no file left open)
        awaitPreload();
        assertThat(metrics.counters().get("tick.hdb.preload.bytes").get()).isZero();
    }

    @Test
    void shouldRejectNegativePreloadDays() {
        hdb = new HistoricalDatabase(root, metrics);
        assertThatThrownBy(() -> hdb.preloadDays(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
