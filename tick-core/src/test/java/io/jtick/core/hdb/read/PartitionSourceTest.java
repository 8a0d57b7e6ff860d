package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The query engine over real HDB partitions, each encoding, checked against sums computed from the source rows. */
@ExtendWith(LeakCheck.class)
class PartitionSourceTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);
    private static final LocalDate D2 = LocalDate.of(2026, 9, 2);

    @TempDir
    Path root;

    @Test
    void shouldAnswerVwapAndCountBySymOverPartitionsInEveryTier() throws IOException {
        final MemorySegment day1 = SyntheticDay.segment("trade", D1, 20_000, 30, 1);
        final MemorySegment day2 = SyntheticDay.segment("trade", D2, 15_000, 30, 2);
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(D1, List.of(day1));
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/zstd:3"))).write(D2, List.of(day2));
        final Map<String, double[]> expected = new TreeMap<>();
        for (final MemorySegment t : List.of(day1, day2)) {
            for (int r = 0; r < t.rowCount(); r++) {
                final double[] acc = expected.computeIfAbsent(Cells.sym(t, r), k -> new double[3]);
                acc[0] += Cells.number(t, 2, r) * Cells.number(t, 3, r);
                acc[1] += Cells.number(t, 3, r);
                acc[2]++;
            }
        }
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            final ResultTable result = new QueryEngine().query(
                "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"]}",
                new PartitionSource(hdb));
            assertThat(result.columns()).containsExactly("sym", "vwap", "n");
            assertThat(result.rows()).hasSize(expected.size());
            for (final List<Object> row : result.rows()) {
                final double[] acc = expected.get((String) row.get(0));
                assertThat(((Number) row.get(1)).doubleValue()).isCloseTo(acc[0] / acc[1], org.assertj.core.data.Offset.offset(1e-9));
                assertThat(((Number) row.get(2)).longValue()).isEqualTo((long) acc[2]);
            }
            final ResultTable one = new QueryEngine().query(
                "{\"table\":\"trade\",\"dates\":\"2026-09-02\",\"where\":{\"sym\":[\"S0007\"]},\"select\":{\"n\":{\"count\":\"*\"}}}",
                new PartitionSource(hdb));
            final long n7 = Cells.symRows(day2, "S0007").size();
            assertThat(((Number) one.rows().get(0).get(0)).longValue()).isEqualTo(n7);
            assertThat(hdb.schemaOf("trade")).isEqualTo(TableSchema.trade(0));
        }
    }

    /**
     * One sym's rows, a time window grouped by sym and a whole-day VWAP over partitions of each
     * encoding, against the same rows in memory (a plain scan): an encoded partition's scans cut
     * their batches at the time column's blocks ({@link TableSegment#batchEnd}), whose ends cover
     * every sym's end, lie in {@code (from, to]} and are at most a block apart; a plain one does not cut.
     */
    @Test
    void shouldAnswerAsThePlainScanWithBatchesCutAtTheTimeBlocks() throws IOException {
        final MemorySegment day = SyntheticDay.segment("quote", D1, 60_000, 25, 3);
        final long t0 = Cells.time(day, day.rowCount() / 3);
        final long t1 = Cells.time(day, day.rowCount() / 2);
        final List<String> queries = List.of(
            "{\"table\":\"quote\",\"where\":{\"sym\":\"S0007\"}}",
            "{\"table\":\"quote\",\"where\":{\"sym\":\"S0011\"},\"select\":[\"time\",\"sym\",\"ask\"],\"limit\":1500}",
            "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + t0 + "," + t1 + "]}},"
                + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}},\"n\":{\"count\":\"*\"},"
                + "\"last\":{\"last\":\"bid\"}},\"by\":\"sym\"}",
            "{\"table\":\"quote\",\"select\":{\"vwap\":{\"wavg\":[\"bsize\",\"bid\"]},\"first\":{\"first\":\"ask\"}},\"by\":\"sym\"}");
        final QueryEngine engine = new QueryEngine();
        final MemorySource memory = new MemorySource().add(day);
        final List<List<List<Object>>> expected = new ArrayList<>();
        for (final String q : queries) {
            expected.add(engine.query(q, memory).rows());
        }
        for (final String encoding : List.of("plain", "lz4", "auto/lz4", "auto/zstd:3")) {
            final Path dir = root.resolve(encoding.replace('/', '-').replace(':', '-'));
            final ColumnEncoding e = ColumnEncoding.parse(encoding);
            new PartitionWriter(dir, e.isPlain() ? EncodingPolicy.PLAIN : EncodingPolicy.uniform(e)).write(D1, List.of(day));
            try (HistoricalDatabase hdb = new HistoricalDatabase(dir, new TickMetrics())) {
                hdb.reload();
                final PartitionSource source = new PartitionSource(hdb);
                for (int i = 0; i < queries.size(); i++) {
                    final List<List<Object>> got = engine.query(queries.get(i), source).rows();
                    assertThat(got).as("%s: %s", encoding, queries.get(i)).hasSameSizeAs(expected.get(i));
                    for (int r = 0; r < got.size(); r++) {
                        for (int c = 0; c < got.get(r).size(); c++) {
                            final Object want = expected.get(i).get(r).get(c);
                            if (want instanceof Double d) {
                                assertThat((Double) got.get(r).get(c)).as("%s row %s col %s", encoding, r, c)
                                    .isCloseTo(d, org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(d))));
                            } else {
                                assertThat(got.get(r).get(c)).as("%s row %s col %s", encoding, r, c).isEqualTo(want);
                            }
                        }
                    }
                }
                final List<TableSegment> segs = source.segments("quote", (int) D1.toEpochDay(), (int) D1.toEpochDay(),
                    new ScanHint(List.of("time"), null));
                try {
                    final TableSegment seg = segs.get(0);
                    final List<Integer> ends = new ArrayList<>();
                    for (int from = 0; from < seg.rowCount();) {
                        final int end = seg.batchEnd(from, seg.rowCount());
                        assertThat(end).as("%s from %s", encoding, from).isGreaterThan(from).isLessThanOrEqualTo(seg.rowCount());
                        assertThat(seg.batchEnd(from, from + 1)).isEqualTo(from + 1);
                        ends.add(end);
                        from = end;
                    }
                    if (e.isPlain()) {
                        assertThat(ends).containsExactly(seg.rowCount());
                    } else {
                        final RowsOf rows = new RowsOf();
                        for (int id = 0; id < seg.symIdLimit(); id++) {
                            seg.symRows(id, rows);
                        }
                        assertThat(ends).as(encoding).containsAll(rows.ends);
                        for (int k = 0; k < ends.size(); k++) {
                            // at most a block of 8-byte values: 16 KiB for lz4, 32 KiB for zstd (BlockCuts)
                            assertThat(ends.get(k) - (k == 0 ? 0 : ends.get(k - 1))).as(encoding).isLessThanOrEqualTo(4096);
                        }
                    }
                } finally {
                    segs.forEach(TableSegment::close);
                }
            }
        }
    }

    /** The end of each range a sym index hands out. */
    private static final class RowsOf implements io.jtick.core.table.RowSink {
        final List<Integer> ends = new ArrayList<>();

        @Override
        public void range(final int from, final int to) {
            ends.add(to);
        }

        @Override
        public void rows(final int[] rows, final int from, final int to) {
            throw new AssertionError("a partition's sym rows are a range");
        }
    }
}
