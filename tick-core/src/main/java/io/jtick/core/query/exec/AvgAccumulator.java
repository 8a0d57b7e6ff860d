package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code avg}: sum and count of the non-null values; null for a group with none. */
final class AvgAccumulator extends Accumulator {
    double[] s = new double[0];
    long[] n = new long[0];

    AvgAccumulator(final Ev a) {
        super(a, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        s = Arrays.copyOf(s, newCapacity);
        n = Arrays.copyOf(n, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final int[] sel = batch.sel;
        final int count = batch.count;
        final double[] acc = s;
        final long[] cnt = n;
        if (!a.isLong && !longRuns) {
            final double[] x = a.d;
            final int o = a.off;
            for (int i = 0; i < count; i++) {
                final double v = x[o + (sel == null ? i : sel[i])];
                if (v == v) {
                    final int g = gid[i];
                    acc[g] += v;
                    cnt[g]++;
                }
            }
        } else if (!a.isLong) {
            final double[] x = a.d;
            final int o = a.off;
            int i = 0;
            while (i < count) {
                final int g = gid[i];
                double run = 0;
                long n1 = 0;
                do {
                    final double v = x[o + (sel == null ? i : sel[i])];
                    if (v == v) {
                        run += v;
                        n1++;
                    }
                    i++;
                } while (i < count && gid[i] == g);
                acc[g] += run;
                cnt[g] += n1;
            }
        } else {
            for (int i = 0; i < count; i++) {
                final double v = a.dbl(sel == null ? i : sel[i]);
                if (v == v) {
                    final int g = gid[i];
                    acc[g] += v;
                    cnt[g]++;
                }
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final AvgAccumulator o = (AvgAccumulator) other;
        for (int g = 0; g < groups; g++) {
            s[map[g]] += o.s[g];
            n[map[g]] += o.n[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        if (n[g] == 0) {
            sink.nullValue();
        } else {
            sink.value(s[g] / n[g]);
        }
    }
}
