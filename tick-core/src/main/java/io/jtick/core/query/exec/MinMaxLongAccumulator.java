package io.jtick.core.query.exec;

import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code min} or {@code max} of long-kind values; null for a group with none. */
final class MinMaxLongAccumulator extends Accumulator {
    private final boolean min;
    long[] v = new long[0];
    boolean[] has = new boolean[0];

    MinMaxLongAccumulator(final Ev a, final boolean min) {
        super(a, null);
        this.min = min;
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        v = Arrays.copyOf(v, newCapacity);
        has = Arrays.copyOf(has, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final long[] x = a.l;
        final int o = a.off;
        final int[] sel = batch.sel;
        final int count = batch.count;
        for (int i = 0; i < count; i++) {
            final long val = x[o + (sel == null ? i : sel[i])];
            if (a.nullable && val == Plan.NULL_LONG) {
                continue;
            }
            put(gid[i], val);
        }
    }

    private void put(final int g, final long val) {
        if (!has[g]) {
            has[g] = true;
            v[g] = val;
        } else if (min ? val < v[g] : val > v[g]) {
            v[g] = val;
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final MinMaxLongAccumulator o = (MinMaxLongAccumulator) other;
        for (int g = 0; g < groups; g++) {
            if (o.has[g]) {
                put(map[g], o.v[g]);
            }
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        if (has[g]) {
            sink.value(v[g]);
        } else {
            sink.nullValue();
        }
    }
}
