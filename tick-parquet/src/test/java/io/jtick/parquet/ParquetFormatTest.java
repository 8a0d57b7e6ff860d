package io.jtick.parquet;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * A day tiered to Parquet answers every question as the plain tier does, reads only the row groups
 * a query needs, keeps a running query's files, and is a file DuckDB reads as it is.
 */
@ExtendWith(LeakCheck.class)
class ParquetFormatTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);
    private static final int ROWS = 40_000;

    @TempDir
    Path plainRoot;
    @TempDir
    Path parquetRoot;

    private final List<HistoricalDatabase> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(HistoricalDatabase::close);
    }

    private HistoricalDatabase hdb(final Path root, final List<MemorySegment> tables) throws IOException {
        new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(D1, tables);
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        opened.add(hdb);
        hdb.reload();
        return hdb;
    }

    private static List<MemorySegment> day() {
        return List.of(SyntheticDay.segment("trade", D1, ROWS, 40, 7), SyntheticDay.segment("quote", D1, ROWS, 40, 8));
    }

    private static TierPolicy parquetAfterOneDay(final String format) {
        return new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(), Map.of()),
            TierPolicy.Tier.parse("lake", -1, format, Map.of(), Map.of())));
    }

    /** The six questions of the query benchmark, as the bench asks them. */
    static List<String> sixQuestions(final String sym, final long from, final long to) {
        return List.of(
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":{\"open\":{\"first\":\"price\"},"
                + "\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
                + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}",
            "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + from + "," + to + "]}},"
                + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}");
    }

    static List<List<Object>> answer(final QueryEngine engine, final HistoricalDatabase hdb, final String json) {
        final PartitionSource source = new PartitionSource(hdb);
        final ResultTable t = new ResultTable();
        engine.execute(engine.prepare(json, source), source, t);
        return t.rows();
    }

    @Test
    void shouldAnswerTheSixQuestionsAsThePlainTierDoes() throws IOException {
        final HistoricalDatabase plain = hdb(plainRoot, day());
        final HistoricalDatabase lake = hdb(parquetRoot, day());
        final TieringJob.Report report = new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3));
        assertThat(report.failed()).isEmpty();
        assertThat(report.moved()).extracting(TieringJob.Moved::tier).containsExactly("lake", "lake");
        assertThat(lake.partitions().get(0).tables()).extracting(HistoricalDatabase.TableInfo::format)
            .containsExactly("parquet/zstd", "parquet/zstd");
        assertThat(Files.exists(parquetRoot.resolve("2026-09-01/trade/trade.parquet"))).isTrue();
        assertThat(new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(4)).moved()).as("in tier").isEmpty();

        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        final long open = SyntheticDay.open(D1, SyntheticDay.NEW_YORK);
        for (final String q : sixQuestions("S0007", open + 3_600_000_000_000L, open + 7_200_000_000_000L)) {
            final List<List<Object>> want = answer(engine, plain, q);
            assertThat(want).as(q).isNotEmpty();
            assertThat(answer(engine, lake, q)).as(q).isEqualTo(want);
        }
    }

    @Test
    void shouldAnswerARepeatedScanFromTheDecodedPageCache() throws IOException {
        final HistoricalDatabase plain = hdb(plainRoot, List.of(SyntheticDay.segment("trade", D1, ROWS, 40, 7)));
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(SyntheticDay.segment("trade", D1, ROWS, 40, 7)));
        assertThat(new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3)).failed()).isEmpty();
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
        final String vwap = sixQuestions("S0001", 0, 1).get(1);
        final List<List<Object>> want = answer(engine, plain, vwap);
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        final long misses0 = cache.misses();
        assertThat(answer(engine, lake, vwap)).isEqualTo(want);
        final long misses1 = cache.misses();
        final long hits1 = cache.hits();
        final int pages = (ROWS + ParquetTableWriter.PAGE_ROWS - 1) / ParquetTableWriter.PAGE_ROWS;
        assertThat(misses1 - misses0).as("the first scan decodes the price and size pages").isGreaterThanOrEqualTo(2L * pages);
        assertThat(answer(engine, lake, vwap)).isEqualTo(want);
        assertThat(cache.hits() - hits1).as("the second scan finds every page decoded").isGreaterThanOrEqualTo(misses1 - misses0);
        assertThat(cache.misses()).as("and decodes none again").isEqualTo(misses1);
    }

    @Test
    void shouldNotFillTheCacheWithAScanOfAColumnLargerThanAQuarterOfIt() throws IOException {
        final int rows = 400_000;
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(SyntheticDay.segment("trade", D1, rows, 1, 7)));
        assertThat(new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3)).failed()).isEmpty();
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        final long capacity = cache.capacityBytes();
        final List<StoredTable> held = lake.acquire("trade", D1, D1);
        try {
            cache.capacityBytes(4L * rows * 8 - 8); // the time column is just over a quarter of it
            cache.clear();
            final ParquetTable t = (ParquetTable) held.get(0);
            final List<Integer> pageRows = new ArrayList<>();
            for (int g = 0; g < t.groupCount(); g++) {
                for (int r = t.groupStart(g); r < t.groupStart(g + 1); r += ParquetTableWriter.PAGE_ROWS) {
                    pageRows.add(r);
                }
            }
            assertThat(pageRows.size()).isGreaterThan(ParquetTable.SCAN_READS + 2);
            final ColumnChunk scan = new ColumnChunk();
            for (final int r : pageRows) {
                t.read(TableSchema.TIME, r, 1, scan);
            }
            final long hits = cache.hits();
            final long misses = cache.misses();
            final ColumnChunk again = new ColumnChunk();
            for (final int r : pageRows) {
                t.read(TableSchema.TIME, r, 1, again);
            }
            assertThat(cache.hits() - hits).as("the first pages of the scan were kept").isEqualTo(ParquetTable.SCAN_READS);
            assertThat(cache.misses() - misses).as("the rest were not").isEqualTo(pageRows.size() - ParquetTable.SCAN_READS);
        } finally {
            cache.capacityBytes(capacity);
            held.forEach(StoredTable::release);
        }
    }

    private static long pagesLookedUp() {
        return DecodedBlockCache.shared().hits() + DecodedBlockCache.shared().misses();
    }

    @Test
    void shouldFindATimeDecodingOnlyThePageThatReachesIt() throws IOException {
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(SyntheticDay.segment("trade", D1, ROWS, 1, 7)));
        assertThat(new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3)).failed()).isEmpty();
        final List<StoredTable> held = lake.acquire("trade", D1, D1);
        try {
            final ParquetTable t = (ParquetTable) held.get(0);
            final long[] times = new long[t.rowCount()];
            t.copyRows(TableSchema.TIME, 0, times.length, times, 0);
            final java.util.SplittableRandom random = new java.util.SplittableRandom(5);
            for (int k = 0; k < 50; k++) {
                final int row = random.nextInt(times.length);
                final long at = times[row] + random.nextLong(-1, 2);
                int want = 0;
                while (want < times.length && times[want] < at) {
                    want++;
                }
                final long before = pagesLookedUp();
                assertThat(t.lowerBound(TableSchema.TIME, 0, times.length, at, new ColumnChunk())).as("t=%d", at).isEqualTo(want);
                assertThat(pagesLookedUp() - before).as("pages read of %d rows", times.length).isEqualTo(1);
            }
            assertThat(t.lowerBound(TableSchema.TIME, 0, times.length, times[times.length - 1] + 1, new ColumnChunk()))
                .isEqualTo(times.length);
            assertThat(t.lowerBound(TableSchema.TIME, 0, times.length, Long.MIN_VALUE, new ColumnChunk())).isZero();
        } finally {
            held.forEach(StoredTable::release);
        }
    }

    @Test
    void shouldCutRowGroupsAtSymBoundariesAndReadOnlyTheGroupsOfTheSymsAsked() throws IOException {
        final HistoricalDatabase plain = hdb(plainRoot, List.of(SyntheticDay.segment("trade", D1, ROWS, 40, 7)));
        final List<StoredTable> source = plain.acquire("trade", D1, D1);
        final Path dir = parquetRoot.resolve("2026-09-01/trade");
        Files.createDirectories(dir);
        ParquetTableWriter.write(source.get(0), ParquetTableWriter.codec("snappy"), dir.resolve("trade.parquet"), 4096);
        source.forEach(StoredTable::release);
        Files.writeString(dir.resolve(".format"), "parquet\n");
        final HistoricalDatabase lake = new HistoricalDatabase(parquetRoot, new TickMetrics());
        opened.add(lake);
        lake.reload();
        final List<StoredTable> held = lake.acquire("trade", D1, D1);
        try {
            final ParquetTable t = (ParquetTable) held.get(0);
            assertThat(t.format()).isEqualTo("parquet/snappy");
            assertThat(t.groupCount()).isGreaterThan(1);
            final SymRanges syms = t.syms();
            final List<Integer> symStarts = new ArrayList<>();
            for (int k = 0; k < syms.count(); k++) {
                symStarts.add(syms.from(k));
            }
            for (int g = 0; g < t.groupCount(); g++) {
                assertThat(symStarts).as("row group %d starts a sym", g).contains(t.groupStart(g));
                assertThat(t.groupStart(g + 1) - t.groupStart(g)).isLessThanOrEqualTo(4096);
            }
            final long before = t.decodes();
            final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
            final List<List<Object>> rows = answer(engine, lake, "{\"table\":\"trade\",\"where\":{\"sym\":\"S0003\"},"
                + "\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"}}}");
            assertThat(((Number) rows.get(0).get(0)).intValue()).isEqualTo(syms.to(syms.code("S0003")) - syms.from(syms.code("S0003")));
            assertThat(t.decodes() - before).as("one column (size) of the one row group holding S0003").isEqualTo(1);
        } finally {
            held.forEach(StoredTable::release);
        }
    }

    @Test
    void shouldReadBackAColumnWhoseDictionaryFellBack() throws IOException {
        // a row counter has no repeats: its dictionary stops paying on the first page and the writer falls back
        final int rows = 40_000;
        final MemorySegment trade = SyntheticDay.segment("trade", D1, rows, 10, 5, "n");
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(trade));
        assertThat(new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3)).failed()).isEmpty();
        final List<StoredTable> held = lake.acquire("trade", D1, D1);
        try {
            final StoredTable t = held.get(0);
            assertThat(t.format()).isEqualTo("parquet/zstd");
            final int n = t.schema().columnCount() - 1;
            final long[] seen = new long[rows];
            final ColumnChunk chunk = new ColumnChunk();
            for (int at = 0; at < rows; at += 10_000) {
                t.read(n, at, 10_000, chunk);
                System.arraycopy(chunk.longs(), chunk.offset(), seen, at, 10_000);
            }
            java.util.Arrays.sort(seen);
            for (int i = 0; i < rows; i++) {
                assertThat(seen[i]).as("counter value %d", i).isEqualTo(i);
            }
        } finally {
            held.forEach(StoredTable::release);
        }
    }

    @Test
    void shouldSplitASymLargerThanARowGroup() {
        final SymRanges syms = new SymRanges(new String[] {"A", "B", "C"}, new int[] {0, 10, 300_010}, new int[] {10, 300_010, 300_020});
        final int g = 131_072;
        assertThat(ParquetTableWriter.groups(syms, 300_020, g)).containsExactly(0, 10, 10 + g, 10 + 2 * g, 300_020);
    }

    @Test
    void shouldLetARunningQueryFinishOnTheOldFilesWhenTheTierMoves() throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", D1, 20_000, 10, 3);
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(trade));
        new TieringJob(lake, parquetAfterOneDay("parquet/lz4"), 65_536).run(D1.plusDays(3));
        final List<StoredTable> held = lake.acquire("trade", D1, D1);
        final StoredTable old = held.get(0);
        final double before = sum(old, 3);
        // back to jtick's column files: the Parquet file is deleted under the held table
        final TieringJob.Report back = new TieringJob(lake, new TierPolicy(List.of(TierPolicy.Tier.parse("cold", -1, "auto/zstd:3",
            Map.of(), Map.of()))), 65_536).run(D1.plusDays(3));
        assertThat(back.failed()).isEmpty();
        assertThat(Files.exists(parquetRoot.resolve("2026-09-01/trade/trade.parquet"))).isFalse();
        assertThat(sum(old, 3)).isEqualTo(before);
        old.release();
        assertThatThrownBy(() -> old.read(3, 0, 1, new ColumnChunk())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
        final List<StoredTable> fresh = lake.acquire("trade", D1, D1);
        assertThat(fresh.get(0).format()).isEqualTo("jtick");
        assertThat(sum(fresh.get(0), 3)).isEqualTo(before);
        fresh.forEach(StoredTable::release);
    }

    private static double sum(final StoredTable t, final int column) {
        final ColumnChunk chunk = new ColumnChunk();
        double s = 0;
        for (int at = 0; at < t.rowCount(); at += 10_000) {
            final int n = Math.min(10_000, t.rowCount() - at);
            t.read(column, at, n, chunk);
            for (int i = 0; i < n; i++) {
                s += t.schema().type(column) == ColumnType.INT64 ? chunk.longs()[chunk.offset() + i] : chunk.doubles()[chunk.offset() + i];
            }
        }
        return s;
    }

    @Test
    void shouldBeReadByDuckDbWithTheSameCountsSumsAndVwaps() throws Exception {
        final HistoricalDatabase lake = hdb(parquetRoot, List.of(SyntheticDay.segment("trade", D1, 30_000, 20, 11)));
        new TieringJob(lake, parquetAfterOneDay("parquet/zstd"), 65_536).run(D1.plusDays(3));
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
        final Map<String, double[]> ours = new TreeMap<>();
        for (final List<Object> r : answer(engine, lake, "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},"
            + "\"v\":{\"sum\":\"size\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}")) {
            ours.put((String) r.get(0), new double[] {((Number) r.get(1)).doubleValue(), ((Number) r.get(2)).doubleValue(),
                ((Number) r.get(3)).doubleValue()});
        }
        final Map<String, double[]> duck = new TreeMap<>();
        final Path file = parquetRoot.resolve("2026-09-01/trade/trade.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT sym, count(*), sum(size), sum(price * size) / sum(size), min(time), "
                 + "any_value(typeof(time)) FROM read_parquet('" + file + "') GROUP BY sym ORDER BY sym")) {
            while (rs.next()) {
                duck.put(rs.getString(1), new double[] {rs.getLong(2), rs.getLong(3), rs.getDouble(4)});
                assertThat(rs.getString(6)).as("TIMESTAMP(NANOS, UTC)").isEqualTo("TIMESTAMPTZ_NS");
            }
        }
        assertThat(duck.keySet()).isEqualTo(ours.keySet());
        for (final String sym : ours.keySet()) {
            assertThat(duck.get(sym)[0]).isEqualTo(ours.get(sym)[0]);
            assertThat(duck.get(sym)[1]).isEqualTo(ours.get(sym)[1]);
            assertThat(duck.get(sym)[2]).isCloseTo(ours.get(sym)[2], within(1e-9 * ours.get(sym)[2]));
        }
    }
}
