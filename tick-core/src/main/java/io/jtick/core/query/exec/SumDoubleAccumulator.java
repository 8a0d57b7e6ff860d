package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code sum} of float values, as float64; NaN (null) skipped. */
final class SumDoubleAccumulator extends Accumulator {
    double[] s = new double[0];

    SumDoubleAccumulator(final Ev a) {
        super(a, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        s = Arrays.copyOf(s, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final double[] x = a.d;
        final int o = a.off;
        final int[] sel = batch.sel;
        final int count = batch.count;
        final double[] acc = s;
        if (!longRuns) {
            for (int i = 0; i < count; i++) {
                final double v = x[o + (sel == null ? i : sel[i])];
                if (v == v) {
                    acc[gid[i]] += v;
                }
            }
            return;
        }
        int i = 0;
        while (i < count) {
            final int g = gid[i];
            double run = 0;
            do {
                final double v = x[o + (sel == null ? i : sel[i])];
                if (v == v) {
                    run += v;
                }
                i++;
            } while (i < count && gid[i] == g);
            acc[g] += run;
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final double[] o = ((SumDoubleAccumulator) other).s;
        for (int g = 0; g < groups; g++) {
            s[map[g]] += o[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        sink.value(s[g]);
    }
}
