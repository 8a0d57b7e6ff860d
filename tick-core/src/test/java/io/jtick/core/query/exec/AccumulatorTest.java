package io.jtick.core.query.exec;

import io.jtick.core.query.plan.Plan;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.jtick.core.query.exec.ExecRig.group;
import static io.jtick.core.query.exec.ExecRig.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Every aggregate against hand-computed answers, through {@link Groups} over one batch per segment. */
class AccumulatorTest {
    /** time, sym, px float64, qty int64, wt float64, f float32, n int32, c char. */
    static final TableSchema T = TableSchema.of("t", new ColumnDef("px", ColumnType.FLOAT64), new ColumnDef("qty", ColumnType.INT64),
        new ColumnDef("wt", ColumnType.FLOAT64), new ColumnDef("f", ColumnType.FLOAT32), new ColumnDef("n", ColumnType.INT32),
        new ColumnDef("c", ColumnType.CHAR));
    static final double NAN = Double.NaN;
    private static final int DAY = 20_413;

    private static MemorySegment.Builder rows() {
        return MemorySegment.builder(T, DAY);
    }

    private static MemorySegment.Builder row(final MemorySegment.Builder b, final long time, final String sym, final double px,
                                             final long qty) {
        return b.row(time, sym, px, qty, 1.0, 0.0f, 0, 'N');
    }

    private static List<Object> list(final Object... values) {
        return Arrays.asList(values);
    }

    private static Plan byNothing(final String select) {
        return plan("{\"table\":\"t\",\"select\":" + select + "}", T);
    }

    private static Plan bySym(final String select) {
        return plan("{\"table\":\"t\",\"select\":" + select + ",\"by\":\"sym\"}", T);
    }

    @Test
    void shouldCountSumAndAverageSkippingNulls() {
        final MemorySegment.Builder b = rows();
        row(b, 1, "A", 10, 1);
        row(b, 2, "B", 5, 7);
        row(b, 3, "A", 20, 3);
        row(b, 4, "A", NAN, 2);
        final Plan p = bySym("{\"n\":{\"count\":\"*\"},\"sq\":{\"sum\":\"qty\"},\"sp\":{\"sum\":\"px\"},\"ap\":{\"avg\":\"px\"},"
            + "\"aq\":{\"avg\":\"qty\"}}");

        assertThat(group(p, b.build())).containsExactly(
            list("A", 3L, 6L, 30.0, 15.0, 2.0),
            list("B", 1L, 7L, 5.0, 5.0, 7.0));
    }

    @Test
    void shouldGiveZeroCountsAndSumsAndNullOtherwiseOverNoRows() {
        final Plan p = byNothing("{\"n\":{\"count\":\"*\"},\"sq\":{\"sum\":\"qty\"},\"sp\":{\"sum\":\"px\"},\"ap\":{\"avg\":\"px\"},"
            + "\"lo\":{\"min\":\"qty\"},\"hi\":{\"max\":\"px\"},\"fp\":{\"first\":\"px\"},\"lq\":{\"last\":\"qty\"},"
            + "\"fs\":{\"first\":\"sym\"},\"w\":{\"wavg\":[\"qty\",\"px\"]},\"med\":{\"median\":\"px\"},\"sd\":{\"dev\":\"px\"}}");

        final List<List<Object>> out = group(p, rows().build());

        assertThat(out).hasSize(1);
        final List<Object> r = out.get(0);
        assertThat(r.subList(0, 3)).containsExactly(0L, 0L, 0.0);
        assertThat(r.get(3)).as("avg").isNull();
        assertThat(r.get(4)).as("min of longs").isNull();
        assertThat((Double) r.get(5)).as("max of floats: NaN, which sinks write as null").isNaN();
        assertThat(r.subList(6, 12)).containsOnlyNulls();
    }

    @Test
    void shouldTakeMinAndMaxOfEachTypeSkippingNullFloats() {
        final MemorySegment seg = rows()
            .row(1L, "A", NAN, 5L, 1.0, 1.5f, 7, 'N')
            .row(2L, "A", 3.0, -2L, 1.0, -0.5f, -1, 'N')
            .row(3L, "A", 1.0, 9L, 1.0, 0.25f, 3, 'N')
            .row(4L, "A", 2.0, 0L, 1.0, 0.0f, 0, 'N')
            .build();
        final Plan p = byNothing("{\"lp\":{\"min\":\"px\"},\"hp\":{\"max\":\"px\"},\"lq\":{\"min\":\"qty\"},\"hq\":{\"max\":\"qty\"},"
            + "\"lf\":{\"min\":\"f\"},\"hf\":{\"max\":\"f\"},\"ln\":{\"min\":\"n\"},\"hn\":{\"max\":\"n\"}}");

        assertThat(group(p, seg)).containsExactly(list(1.0, 3.0, -2L, 9L, -0.5, 1.5, -1L, 7L));
    }

    @Test
    void shouldTakeTheFirstAndLastRowAsTheyAreNullsIncluded() {
        final MemorySegment seg = rows()
            .row(1L, "A", NAN, 5L, 1.0, 0f, 0, 'X')
            .row(2L, "B", 1.0, 6L, 1.0, 0f, 0, 'Y')
            .row(3L, "A", 2.0, 7L, 1.0, 0f, 0, 'Z')
            .row(4L, "B", NAN, 8L, 1.0, 0f, 0, 'W')
            .build();
        final Plan p = bySym("{\"fp\":{\"first\":\"px\"},\"lp\":{\"last\":\"px\"},\"fq\":{\"first\":\"qty\"},\"lq\":{\"last\":\"qty\"},"
            + "\"fc\":{\"first\":\"c\"},\"lc\":{\"last\":\"c\"},\"ft\":{\"first\":\"time\"}}");

        assertThat(group(p, seg)).containsExactly(
            list("A", NAN, 2.0, 5L, 7L, (long) 'X', (long) 'Z', 1L),
            list("B", 1.0, NAN, 6L, 8L, (long) 'Y', (long) 'W', 2L));
    }

    @Test
    void shouldTakeTheFirstAndLastOfLongRunsOfOneGroup() {
        // one group over 8 rows: the kernels fold the run in registers
        final MemorySegment.Builder b = rows();
        for (int i = 0; i < 8; i++) {
            row(b, i, "A", i == 0 ? NAN : i * 1.5, 10 + i);
        }
        final Plan p = byNothing("{\"fp\":{\"first\":\"px\"},\"lp\":{\"last\":\"px\"},\"fq\":{\"first\":\"qty\"},\"lq\":{\"last\":\"qty\"},"
            + "\"fs\":{\"first\":\"sym\"},\"ls\":{\"last\":\"sym\"},\"lo\":{\"min\":\"px\"},\"s\":{\"sum\":\"qty\"}}");

        assertThat(group(p, b.build())).containsExactly(list(NAN, 10.5, 10L, 17L, "A", "A", 1.5, 108L));
    }

    @Test
    void shouldTakeTheFirstAndLastSymOfEachGroup() {
        final MemorySegment seg = rows()
            .row(1L, "B", 1.0, 1L, 1.0, 0f, 0, 'X')
            .row(2L, "A", 1.0, 1L, 1.0, 0f, 0, 'X')
            .row(3L, "C", 1.0, 1L, 1.0, 0f, 0, 'Y')
            .build();
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"fs\":{\"first\":\"sym\"},\"ls\":{\"last\":\"sym\"}},\"by\":\"c\"}", T);

        assertThat(group(p, seg)).containsExactly(list((long) 'X', "B", "A"), list((long) 'Y', "C", "C"));
    }

    @Test
    void shouldWeighTheAverageAndGiveNullForNoWeight() {
        final MemorySegment.Builder b = rows();
        row(b, 1, "A", 10, 1);
        row(b, 2, "A", 20, 3);
        row(b, 3, "B", 7, 0);
        row(b, 4, "C", 4, 2);
        row(b, 5, "C", 1, -1);
        final Plan p = bySym("{\"w\":{\"wavg\":[\"qty\",\"px\"]}}");

        assertThat(group(p, b.build())).containsExactly(
            list("A", 17.5), // (1*10 + 3*20) / 4
            list("B", null), // weights sum to 0
            list("C", 7.0)); // (2*4 - 1*1) / 1
    }

    @Test
    void shouldSkipRowsWithANullWeightOrValueInTheWeightedAverage() {
        final MemorySegment seg = rows()
            .row(1L, "A", 10.0, 1L, 1.0, 0f, 0, 'N')
            .row(2L, "A", 20.0, 1L, 3.0, 0f, 0, 'N')
            .row(3L, "A", NAN, 1L, 2.0, 0f, 0, 'N')
            .row(4L, "A", 99.0, 1L, NAN, 0f, 0, 'N')
            .build();
        final Plan p = bySym("{\"w\":{\"wavg\":[\"wt\",\"px\"]}}");

        assertThat(group(p, seg)).containsExactly(list("A", 17.5));
    }

    @Test
    void shouldTakeTheMedianAsTheMeanOfTheMiddleTwoWhenEven() {
        final MemorySegment.Builder b = rows();
        int t = 0;
        for (final double v : new double[] {3, 1, 2}) {
            row(b, t++, "ODD", v, 0);
        }
        for (final double v : new double[] {4, 1, 3, 2}) {
            row(b, t++, "EVEN", v, 0);
        }
        for (final double v : new double[] {NAN, 8, NAN}) {
            row(b, t++, "NULLS", v, 0);
        }
        row(b, t++, "NONE", NAN, 0);
        for (final double v : new double[] {2, 9, 2, 2}) {
            row(b, t++, "DUPS", v, 0);
        }
        for (final double v : new double[] {-1, -3}) {
            row(b, t++, "NEG", v, 0);
        }
        final Plan p = bySym("{\"m\":{\"median\":\"px\"}}");

        assertThat(group(p, b.build())).containsExactly(
            list("ODD", 2.0), list("EVEN", 2.5), list("NULLS", 8.0), list("NONE", null), list("DUPS", 2.0), list("NEG", -2.0));
    }

    @Test
    void shouldTakeTheMedianOfLongsAsAFloat() {
        final MemorySegment.Builder b = rows();
        row(b, 1, "A", 0, 5);
        row(b, 2, "A", 0, 1);
        row(b, 3, "A", 0, 4);
        row(b, 4, "A", 0, 3);

        assertThat(group(bySym("{\"m\":{\"median\":\"qty\"}}"), b.build())).containsExactly(list("A", 3.5));
    }

    @Test
    void shouldTakeThePopulationStandardDeviation() {
        final MemorySegment.Builder b = rows();
        int t = 0;
        for (final double v : new double[] {2, 4, 4, 4, 5, 5, 7, 9}) {
            row(b, t++, "A", v, 0);
        }
        row(b, t++, "ONE", 42, 0);
        for (final double v : new double[] {1e9 + 1, NAN, 1e9 + 2, 1e9 + 3}) {
            row(b, t++, "BIG", v, 0);
        }
        row(b, t++, "NONE", NAN, 0);

        final List<List<Object>> out = group(bySym("{\"sd\":{\"dev\":\"px\"}}"), b.build());

        assertThat(out.get(0)).containsExactly("A", 2.0);
        assertThat(out.get(1)).containsExactly("ONE", 0.0);
        assertThat(out.get(2).get(0)).isEqualTo("BIG");
        assertThat((Double) out.get(2).get(1)).as("a large level keeps its small spread").isCloseTo(Math.sqrt(2.0 / 3), within(1e-12));
        assertThat(out.get(3)).containsExactly("NONE", null);
    }

    @Test
    void shouldAggregateArithmeticAndConstants() {
        final MemorySegment.Builder b = rows();
        row(b, 1, "A", 10, 2);
        row(b, 2, "A", 20, 3);
        final Plan p = byNothing("{\"notional\":{\"sum\":{\"*\":[\"px\",\"qty\"]}},\"plus\":{\"max\":{\"+\":[\"qty\",0.5]}},"
            + "\"k\":{\"sum\":1}}");

        assertThat(group(p, b.build())).containsExactly(list(80.0, 3.5, 2L));
    }

    @Test
    void shouldMergeALaterScanAsIfBothWereOne() {
        final MemorySegment.Builder early = rows();
        row(early, 1, "A", NAN, 1);
        row(early, 2, "B", 2, 2);
        row(early, 3, "A", 4, 3);
        final MemorySegment.Builder late = rows();
        row(late, 4, "C", 1, 4);
        row(late, 5, "A", 6, 5);
        row(late, 6, "B", NAN, 6);
        final Plan p = bySym("{\"n\":{\"count\":\"*\"},\"s\":{\"sum\":\"px\"},\"a\":{\"avg\":\"qty\"},\"lo\":{\"min\":\"qty\"},"
            + "\"hi\":{\"max\":\"px\"},\"f\":{\"first\":\"px\"},\"l\":{\"last\":\"px\"},\"fq\":{\"first\":\"qty\"},"
            + "\"lq\":{\"last\":\"qty\"},\"fs\":{\"first\":\"sym\"},"
            + "\"w\":{\"wavg\":[\"qty\",\"px\"]},\"m\":{\"median\":\"px\"},\"sd\":{\"dev\":\"qty\"}}");
        final List<Object> a = list("A", 3L, 10.0, 3.0, 1L, 6.0, NAN, 6.0, 1L, 5L, "A", (3 * 4.0 + 5 * 6.0) / 8, 5.0,
            Math.sqrt(8.0 / 3));
        final List<Object> bRow = list("B", 2L, 2.0, 4.0, 2L, 2.0, 2.0, NAN, 2L, 6L, "B", 2.0, 2.0, 2.0);
        final List<Object> c = list("C", 1L, 1.0, 4.0, 4L, 1.0, 1.0, 1.0, 4L, 4L, "C", 1.0, 1.0, 0.0);

        final SymDict dict = new SymDict();
        final Groups first = ExecRig.groups(p, dict, early.build());
        final Groups second = ExecRig.groups(p, dict, late.build());
        first.merge(second);

        final List<List<Object>> merged = ExecRig.rows(p, first, dict);
        assertThat(merged).hasSize(3);
        assertRow(merged.get(0), a);
        assertRow(merged.get(1), bRow);
        assertRow(merged.get(2), c);
        final List<List<Object>> together = group(p, early.build(), late.build());
        for (int g = 0; g < 3; g++) {
            assertRow(together.get(g), merged.get(g));
        }
    }

    private static void assertRow(final List<Object> actual, final List<Object> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            if (expected.get(i) instanceof Double d && d.isNaN()) {
                assertThat((Double) actual.get(i)).as("column " + i + " of " + actual).isNaN();
            } else if (expected.get(i) instanceof Double d) {
                assertThat((Double) actual.get(i)).as("column " + i + " of " + actual).isCloseTo(d, within(1e-12));
            } else {
                assertThat(actual.get(i)).as("column " + i + " of " + actual).isEqualTo(expected.get(i));
            }
        }
    }
}
