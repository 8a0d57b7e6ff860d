package io.jtick.core.query.exec;

import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.AggSpec;
import io.jtick.core.query.result.ResultSink;

/**
 * Per-group state of one aggregate, in primitive arrays indexed by group. Float inputs skip NaN
 * and long inputs skip {@link Plan#NULL_LONG} when nullable (kdb's aggregates ignore nulls), except
 * first and last, which take the row as it is. Kernels run over the kept positions of a batch:
 * group {@code gid[i]} for position {@code sel[i]} ({@code i} when {@code sel} is null).
 */
abstract sealed class Accumulator permits CountAccumulator, SumLongAccumulator, SumDoubleAccumulator, AvgAccumulator,
    MinMaxLongAccumulator, MinMaxDoubleAccumulator, FirstLastLongAccumulator, FirstLastDoubleAccumulator, FirstLastSymAccumulator,
    WavgAccumulator, MedianAccumulator, DevAccumulator {
    final Ev a;
    final Ev b;
    private int capacity;

    Accumulator(final Ev a, final Ev b) {
        this.a = a;
        this.b = b;
    }

    /** Makes room for {@code groups} groups (new groups start empty). */
    final void ensure(final int groups) {
        if (groups > capacity) {
            final int cap = Math.max(groups, Math.max(16, capacity << 1));
            grow(capacity, cap);
            capacity = cap;
        }
    }

    abstract void grow(int oldCapacity, int newCapacity);

    /**
     * Adds a batch's kept rows: group {@code gid[i]} for the i-th kept position. {@code longRuns}:
     * the groups come in long runs (sorted data, bars), so kernels that read-modify-write a group
     * fold each run in registers first (same-address updates row after row would serialize).
     */
    abstract void add(Batch batch, int[] gid, boolean longRuns);

    /** Folds {@code other}'s group g into this one's group {@code map[g]}; {@code other} covers later rows. */
    abstract void merge(Accumulator other, int[] map, int groups);

    /** Writes group g's value. */
    abstract void emit(int g, ResultSink sink, SymDict syms);

    static Accumulator of(final AggSpec spec, final int capacity, final SymDict.LocalMap syms) {
        final Ev a = spec.a() == null ? null : Ev.of(spec.a(), capacity);
        final Ev b = spec.b() == null ? null : Ev.of(spec.b(), capacity);
        switch (spec.kind()) {
            case COUNT:
                return new CountAccumulator();
            case SUM:
                return a.isLong ? new SumLongAccumulator(a) : new SumDoubleAccumulator(a);
            case AVG:
                return new AvgAccumulator(a);
            case MIN:
            case MAX:
                return a.isLong ? new MinMaxLongAccumulator(a, spec.kind() == Query.AggKind.MIN)
                    : new MinMaxDoubleAccumulator(a, spec.kind() == Query.AggKind.MIN);
            case FIRST:
            case LAST:
                if (a.type == ValueType.SYMBOL) {
                    return new FirstLastSymAccumulator(a, spec.kind() == Query.AggKind.FIRST, syms);
                }
                return a.isLong ? new FirstLastLongAccumulator(a, spec.kind() == Query.AggKind.FIRST)
                    : new FirstLastDoubleAccumulator(a, spec.kind() == Query.AggKind.FIRST);
            case WAVG:
                return new WavgAccumulator(a, b);
            case MEDIAN:
                return new MedianAccumulator(a);
            case DEV:
                return new DevAccumulator(a);
            default:
                throw new IllegalStateException("unhandled aggregate " + spec.kind());
        }
    }
}
