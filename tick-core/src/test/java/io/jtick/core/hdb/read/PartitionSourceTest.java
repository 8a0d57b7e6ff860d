package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
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
}
