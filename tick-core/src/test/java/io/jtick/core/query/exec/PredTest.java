package io.jtick.core.query.exec;

import io.jtick.core.query.model.Literals.TimeLit;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.PredSpec;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.jtick.core.query.exec.AccumulatorTest.NAN;
import static io.jtick.core.query.exec.AccumulatorTest.T;
import static org.assertj.core.api.Assertions.assertThat;

/** Each residual condition over one batch: which positions it keeps, in order. */
class PredTest {
    private static final int DAY = 20_413;
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final long HOUR = 3_600_000_000_000L;
    private static final int PX = 2;
    private static final int QTY = 3;
    private static final int F = 5;
    private static final int N = 6;
    private static final int C = 7;

    /** Positions 0..5. */
    private static final MemorySegment SEG = MemorySegment.builder(T, DAY)
        .row(DAY * NANOS_PER_DAY + 9 * HOUR, "A", 1.5, 10L, 1.0, 1.5f, 10, 'N')
        .row(DAY * NANOS_PER_DAY + 10 * HOUR, "B", NAN, 20L, 1.0, 2.5f, -20, 'X')
        .row(DAY * NANOS_PER_DAY + 11 * HOUR, "A", -3.0, -5L, 1.0, -1.0f, 30, 'N')
        .row(DAY * NANOS_PER_DAY + 12 * HOUR, "C", 0.0, 0L, 1.0, 0.0f, 0, (char) 200)
        .row(DAY * NANOS_PER_DAY + 13 * HOUR, "B", 1.5, Long.MAX_VALUE, 1.0, NAN, 10, 'X')
        .row(DAY * NANOS_PER_DAY + 14 * HOUR, "A", 7.0, Long.MIN_VALUE, 1.0, 7.0f, Integer.MIN_VALUE, 'N')
        .build();
    private static final Plan PLAN = ExecRig.plan("{\"table\":\"t\"}", T);

    private static int[] keep(final Pred pred) {
        return keep(pred, null, 6);
    }

    private static int[] keep(final Pred pred, final int[] in, final int count) {
        final int[] out = new int[ExecRig.CAPACITY];
        final int k = pred.filter(ExecRig.batch(PLAN, SEG), in, count, out);
        return Arrays.copyOf(out, k);
    }

    private static Pred of(final int slot, final ValueType type, final Op op, final Object... values) {
        return Pred.of(new PredSpec(slot, type, op, List.of(values)), DAY);
    }

    @Test
    void shouldCompareLongs() {
        assertThat(keep(of(QTY, ValueType.INT64, Op.EQ, 20L))).containsExactly(1);
        assertThat(keep(of(QTY, ValueType.INT64, Op.NE, 20L))).containsExactly(0, 2, 3, 4, 5);
        assertThat(keep(of(QTY, ValueType.INT64, Op.LT, 0L))).containsExactly(2, 5);
        assertThat(keep(of(QTY, ValueType.INT64, Op.LE, 0L))).containsExactly(2, 3, 5);
        assertThat(keep(of(QTY, ValueType.INT64, Op.GT, 10L))).containsExactly(1, 4);
        assertThat(keep(of(QTY, ValueType.INT64, Op.GE, 10L))).containsExactly(0, 1, 4);
        assertThat(keep(of(QTY, ValueType.INT64, Op.WITHIN, -5L, 10L))).containsExactly(0, 2, 3);
        assertThat(keep(of(QTY, ValueType.INT64, Op.WITHIN, 10L, -5L))).as("an empty range").isEmpty();
        assertThat(keep(of(QTY, ValueType.INT64, Op.IN, 20L, -5L, 99L, Long.MIN_VALUE))).containsExactly(1, 2, 5);
        assertThat(keep(of(QTY, ValueType.INT64, Op.IN))).as("in nothing").isEmpty();
    }

    @Test
    void shouldKeepTheExtremesOfLongAtOpenBounds() {
        assertThat(keep(of(QTY, ValueType.INT64, Op.GE, Long.MIN_VALUE))).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(keep(of(QTY, ValueType.INT64, Op.LE, Long.MAX_VALUE))).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void shouldCompareFloatsWhereNullMatchesOnlyNotEqual() {
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.EQ, 1.5))).containsExactly(0, 4);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.NE, 1.5))).containsExactly(1, 2, 3, 5);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.LT, 1.5))).containsExactly(2, 3);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.LE, 1.5))).containsExactly(0, 2, 3, 4);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.GT, 1.5))).containsExactly(5);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.GE, 1.5))).containsExactly(0, 4, 5);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.WITHIN, -3.0, 1.5))).containsExactly(0, 2, 3, 4);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.IN, 7.0, -3.0))).containsExactly(2, 5);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.EQ, -0.0))).as("-0.0 equals 0.0").containsExactly(3);
    }

    @Test
    void shouldWidenFloat32AndInt32Columns() {
        assertThat(keep(of(F, ValueType.FLOAT32, Op.GT, 1.5))).containsExactly(1, 5);
        assertThat(keep(of(F, ValueType.FLOAT32, Op.NE, 0.0))).as("NaN included").containsExactly(0, 1, 2, 4, 5);
        assertThat(keep(of(N, ValueType.INT32, Op.LT, 0L))).containsExactly(1, 5);
        assertThat(keep(of(N, ValueType.INT32, Op.EQ, (long) Integer.MIN_VALUE))).containsExactly(5);
        assertThat(keep(of(N, ValueType.INT32, Op.IN, 10L))).containsExactly(0, 4);
    }

    @Test
    void shouldCompareCharsAsUnsignedCodes() {
        assertThat(keep(of(C, ValueType.CHAR, Op.EQ, (long) 'X'))).containsExactly(1, 4);
        assertThat(keep(of(C, ValueType.CHAR, Op.GT, (long) 'X'))).as("code 200 is above 'X', not negative").containsExactly(3);
        assertThat(keep(of(C, ValueType.CHAR, Op.EQ, 200L))).containsExactly(3);
    }

    @Test
    void shouldResolveTimesOfDayAgainstTheSegmentsDate() {
        final long base = DAY * NANOS_PER_DAY;

        assertThat(keep(of(TableSchema.TIME, ValueType.TIMESTAMP, Op.WITHIN, new TimeLit(10 * HOUR, true),
            new TimeLit(12 * HOUR, true)))).containsExactly(1, 2, 3);
        assertThat(keep(of(TableSchema.TIME, ValueType.TIMESTAMP, Op.NE, new TimeLit(base + 9 * HOUR, false)))).containsExactly(1, 2, 3,
            4, 5);
        assertThat(keep(of(TableSchema.TIME, ValueType.TIMESTAMP, Op.IN, new TimeLit(13 * HOUR, true), new TimeLit(base + 9 * HOUR,
            false)))).containsExactly(0, 4);
        // the same time of day on another date's segment selects nothing of this one
        final Pred otherDay = Pred.of(new PredSpec(TableSchema.TIME, ValueType.TIMESTAMP, Op.GE, List.of(new TimeLit(0, true))),
            DAY + 1);
        assertThat(keep(otherDay)).isEmpty();
    }

    @Test
    void shouldFilterOnlyTheGivenPositionsKeepingTheirOrder() {
        final int[] in = {5, 4, 1, 0};

        assertThat(keep(of(QTY, ValueType.INT64, Op.GE, 10L), in, 4)).containsExactly(4, 1, 0);
        assertThat(keep(of(QTY, ValueType.INT64, Op.GE, 10L), in, 2)).as("only the first count of them").containsExactly(4);
        assertThat(keep(of(QTY, ValueType.INT64, Op.NE, 20L), in, 4)).containsExactly(5, 4, 0);
        assertThat(keep(of(QTY, ValueType.INT64, Op.IN, 10L, 20L), in, 4)).containsExactly(1, 0);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.WITHIN, 0.0, 10.0), in, 4)).containsExactly(5, 4, 0);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.IN, 1.5), in, 4)).containsExactly(4, 0);
        assertThat(keep(of(PX, ValueType.FLOAT64, Op.GT, 0.0), in, 4)).containsExactly(5, 4, 0);
    }

    @Test
    void shouldMaskSymIdsAndDecideUnknownOnes() {
        // local ids: A 0, B 1, C 2
        final boolean[] onlyA = {true, false};

        assertThat(keep(new Pred.SymMask(TableSchema.SYM, onlyA, false))).containsExactly(0, 2, 5);
        assertThat(keep(new Pred.SymMask(TableSchema.SYM, onlyA, true))).as("C is beyond the mask").containsExactly(0, 2, 3, 5);
        assertThat(keep(new Pred.SymMask(TableSchema.SYM, new boolean[0], true), new int[] {3, 1}, 2)).containsExactly(3, 1);
    }
}
