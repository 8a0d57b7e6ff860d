package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code first} or {@code last} of float values: the group's first or last row, NaN included. */
final class FirstLastDoubleAccumulator extends Accumulator {
    private final boolean first;
    double[] v = new double[0];
    boolean[] has = new boolean[0];

    FirstLastDoubleAccumulator(final Ev a, final boolean first) {
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
        final double[] x = a.d;
        final int o = a.off;
        final int[] sel = batch.sel;
        final int count = batch.count;
        if (!longRuns) {
            for (int i = 0; i < count; i++) {
                final int g = gid[i];
                if (!first || !has[g]) {
                    has[g] = true;
                    v[g] = x[o + (sel == null ? i : sel[i])];
                }
            }
            return;
        }
        int i = 0;
        while (i < count) {
            final int g = gid[i];
            final int start = i;
            do {
                i++;
            } while (i < count && gid[i] == g);
            if (!first) {
                v[g] = x[o + (sel == null ? i - 1 : sel[i - 1])];
                has[g] = true;
            } else if (!has[g]) {
                v[g] = x[o + (sel == null ? start : sel[start])];
                has[g] = true;
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final FirstLastDoubleAccumulator o = (FirstLastDoubleAccumulator) other;
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
        if (has[g]) {
            sink.value(v[g]);
        } else {
            sink.nullValue();
        }
    }
}
