package io.jtick.core.query;

import io.jtick.core.query.TestTables.Trade;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.jtick.core.query.TestTables.DAY1;
import static io.jtick.core.query.TestTables.DAY2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A query answered by parts through {@link SplitQuery} (what a gateway over a remote RDB does)
 * must equal the one-pass answer over the same rows: here both parts run in this process, one per
 * day, so no HTTP is involved.
 */
class SplitQueryTest {
    private static final List<Trade> OLD = TestTables.trades(301, 2500, DAY1);
    private static final List<Trade> LATEST = TestTables.trades(302, 2500, DAY2);

    private final QueryEngine engine = new QueryEngine();
    private final MemorySource older = new MemorySource().add(TestTables.tradeSegment(OLD, DAY1, true));
    private final MemorySource latest = new MemorySource().add(TestTables.tradeSegment(LATEST, DAY2, false));
    private final MemorySource both = new MemorySource().add(TestTables.tradeSegment(OLD, DAY1, true))
        .add(TestTables.tradeSegment(LATEST, DAY2, false));

    /** Two parts, the older day first, each answering the partial query in this process. */
    private final class TwoParts implements SplitSource {
        private final MemorySource older;
        private final MemorySource latest;
        private final MemorySource both;
        int executed;

        TwoParts() {
            this(SplitQueryTest.this.older, SplitQueryTest.this.latest, SplitQueryTest.this.both);
        }

        TwoParts(final MemorySource older, final MemorySource latest, final MemorySource both) {
            this.older = older;
            this.latest = latest;
            this.both = both;
        }

        @Override
        public TableSchema schema(final String table) {
            return both.schema(table);
        }

        @Override
        public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
            final List<TableSegment> out = new ArrayList<>(older.segments(table, fromDay, toDay, hint));
            out.addAll(latest.segments(table, fromDay, toDay, hint));
            out.sort(Comparator.comparingInt(TableSegment::epochDay));
            return out;
        }

        @Override
        public boolean splits() {
            return true;
        }

        @Override
        public ResultStats execute(final SplitQuery query, final ResultSink sink) {
            executed++;
            for (final MemorySource part : List.of(older, latest)) {
                final ResultTable r = query.runPartial(part);
                if (r != null) {
                    query.merge(r, r.stats().rowsScanned(), r.stats().segments());
                }
            }
            return query.writeTo(sink);
        }
    }

    private static void assertSameRows(final ResultTable split, final ResultTable onePass) {
        assertThat(split.columns()).isEqualTo(onePass.columns());
        assertThat(split.rowCount()).isEqualTo(onePass.rowCount());
        for (int r = 0; r < onePass.rowCount(); r++) {
            for (int c = 0; c < onePass.columns().size(); c++) {
                final Object want = onePass.get(r, c);
                if (want instanceof Double d) {
                    assertThat((Double) split.get(r, c)).as("row %d column %s", r, onePass.columns().get(c)).isCloseTo(d, within(1e-9));
                } else {
                    assertThat(split.get(r, c)).as("row %d column %s", r, onePass.columns().get(c)).isEqualTo(want);
                }
            }
        }
    }

    @Test
    void shouldMergeThePartsIntoTheOnePassAnswer() {
        final TwoParts parts = new TwoParts();
        final String q = "{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},"
            + "\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"},\"avg\":{\"avg\":\"price\"},\"lo\":{\"min\":\"price\"},"
            + "\"hi\":{\"max\":\"price\"},\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"},"
            + "\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}";
        final ResultTable split = engine.query(q, parts);
        assertThat(parts.executed).as("the engine handed the query to the source").isEqualTo(1);
        assertSameRows(split, engine.query(q, both));
        assertThat(split.stats().rowsScanned()).isEqualTo(5000);
        assertThat(split.stats().segments()).isEqualTo(2);
    }

    @Test
    void shouldOrderAndLimitTheMergedGroupsAsTheEngineDoes() {
        final TwoParts parts = new TwoParts();
        final String q = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"vol\":{\"sum\":\"size\"}},\"by\":[\"sym\",\"cond\"],"
            + "\"orderBy\":[{\"vol\":\"desc\"}],\"limit\":4}";
        final ResultTable split = engine.query(q, parts);
        assertThat(parts.executed).isEqualTo(1);
        assertThat(split.rowCount()).isEqualTo(4);
        assertSameRows(split, engine.query(q, both));
    }

    @Test
    void shouldAnswerAggregatesWithoutKeysOverNoRowsWithOneRow() {
        final TwoParts parts = new TwoParts();
        final String q = "{\"table\":\"trade\",\"where\":{\"sym\":\"nope\"},"
            + "\"select\":{\"n\":{\"count\":\"*\"},\"lo\":{\"min\":\"price\"}}}";
        final ResultTable split = engine.query(q, parts);
        assertThat(parts.executed).isEqualTo(1);
        assertThat(split.rows()).isEqualTo(engine.query(q, both).rows());
    }

    @Test
    void shouldScanQueriesThatDoNotSplit() {
        final TwoParts parts = new TwoParts();
        for (final String q : List.of(
            "{\"table\":\"trade\",\"select\":{\"m\":{\"median\":\"price\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"select\":{\"d\":{\"dev\":\"price\"},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"A\"},\"select\":[\"time\",\"price\"]}")) {
            assertThat(engine.query(q, parts).rows()).as(q).isEqualTo(engine.query(q, both).rows());
        }
        assertThat(parts.executed).as("median, dev and row queries need every row: never split").isZero();
    }

    @Test
    void shouldWeighOnlyNonNullValuesAsTheOnePassWavgDoes() {
        final TableSchema trade = TableSchema.trade(0);
        final long t1 = DAY1 * TestTables.NANOS_PER_DAY;
        final long t2 = DAY2 * TestTables.NANOS_PER_DAY;
        final MemorySegment day1 = MemorySegment.builder(trade, DAY1)
            .row(t1 + 1, "A", 10.0, 1L, 'N')
            .row(t1 + 2, "A", Double.NaN, 5L, 'N')
            .buildParted();
        final MemorySegment day2 = MemorySegment.builder(trade, DAY2)
            .row(t2 + 1, "A", 20.0, 3L, 'N')
            .row(t2 + 2, "B", Double.NaN, 2L, 'N')
            .build();
        final TwoParts parts = new TwoParts(new MemorySource().add(day1), new MemorySource().add(day2),
            new MemorySource().add(day1).add(day2));
        final String q = "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}";

        final ResultTable split = engine.query(q, parts);
        final ResultTable onePass = engine.query(q, parts.both);

        assertThat(parts.executed).isEqualTo(1);
        // A: (1*10 + 3*20) / (1 + 3), the null price dropping its weight 5; B: no value, so null
        assertThat(onePass.rows()).containsExactly(java.util.Arrays.asList("A", 17.5), java.util.Arrays.asList("B", null));
        assertSameRows(split, onePass);
    }
}
