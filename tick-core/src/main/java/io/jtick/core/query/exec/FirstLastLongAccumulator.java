package io.jtick.core.query.exec;

import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code first} or {@code last} of long-kind values: the group's first or last row, null included. */
final class FirstLastLongAccumulator extends Accumulator {
    private final boolean first;
    long[] v = new long[0];
    boolean[] has = new boolean[0];

    FirstLastLongAccumulator(final Ev a, final boolean first) {
        super(a, null);
        this.first = first;
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
        if (first) {
            for (int i = 0; i < count; i++) {
                final int g = gid[i];
                if (!has[g]) {
                    has[g] = true;
                    v[g] = x[o + (sel == null ? i : sel[i])];
                }
            }
        } else {
            for (int i = 0; i < count; i++) {
                final int g = gid[i];
                has[g] = true;
                v[g] = x[o + (sel == null ? i : sel[i])];
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final FirstLastLongAccumulator o = (FirstLastLongAccumulator) other;
        for (int g = 0; g < groups; g++) {
            final int t = map[g];
            if (o.has[g] && (!first || !has[t])) {
                has[t] = true;
                v[t] = o.v[g];
            }
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        if (!has[g] || a.nullable && v[g] == Plan.NULL_LONG) {
            sink.nullValue();
        } else {
            sink.value(v[g]);
        }
    }
}
