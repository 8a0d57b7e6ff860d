package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code min} or {@code max} of float values; NaN (null) for a group with none. */
final class MinMaxDoubleAccumulator extends Accumulator {
    private final boolean min;
    double[] v = new double[0];

    MinMaxDoubleAccumulator(final Ev a, final boolean min) {
        super(a, null);
        this.min = min;
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        v = Arrays.copyOf(v, newCapacity);
        Arrays.fill(v, oldCapacity, newCapacity, Double.NaN);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final int[] sel = batch.sel;
        final int count = batch.count;
        final double[] acc = v;
        if (!a.isLong && !longRuns) {
            final double[] x = a.d;
            final int o = a.off;
            for (int i = 0; i < count; i++) {
                final double val = x[o + (sel == null ? i : sel[i])];
                final int g = gid[i];
                final double cur = acc[g];
                if (min ? val < cur || cur != cur : val > cur || cur != cur) {
                    acc[g] = val;
                }
            }
        } else if (!a.isLong) {
            final double[] x = a.d;
            final int o = a.off;
            int i = 0;
            while (i < count) {
                final int g = gid[i];
                double cur = acc[g];
                do {
                    final double val = x[o + (sel == null ? i : sel[i])];
                    if (min ? val < cur || cur != cur : val > cur || cur != cur) {
                        cur = val;
                    }
                    i++;
                } while (i < count && gid[i] == g);
                acc[g] = cur;
            }
        } else {
            for (int i = 0; i < count; i++) {
                final double val = a.dbl(sel == null ? i : sel[i]);
                final int g = gid[i];
                final double cur = acc[g];
                if (min ? val < cur || cur != cur : val > cur || cur != cur) {
                    acc[g] = val;
                }
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final double[] o = ((MinMaxDoubleAccumulator) other).v;
        for (int g = 0; g < groups; g++) {
            final double val = o[g];
            final double cur = v[map[g]];
            if (min ? val < cur || cur != cur : val > cur || cur != cur) {
                v[map[g]] = val;
            }
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        sink.value(v[g]);
    }
}
