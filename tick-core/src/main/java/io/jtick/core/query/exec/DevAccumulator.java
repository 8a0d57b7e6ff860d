package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/**
 * Population standard deviation (kdb's {@code dev}), from sums of values shifted by the
 * group's first value so that large levels with small spread keep their precision.
 */
final class DevAccumulator extends Accumulator {
    long[] n = new long[0];
    double[] shift = new double[0];
    double[] s1 = new double[0];
    double[] s2 = new double[0];

    DevAccumulator(final Ev a) {
        super(a, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        n = Arrays.copyOf(n, newCapacity);
        shift = Arrays.copyOf(shift, newCapacity);
        s1 = Arrays.copyOf(s1, newCapacity);
        s2 = Arrays.copyOf(s2, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final int[] sel = batch.sel;
        final int count = batch.count;
        for (int i = 0; i < count; i++) {
            final double v = a.dbl(sel == null ? i : sel[i]);
            if (v != v) {
                continue;
            }
            final int g = gid[i];
            if (n[g] == 0) {
                shift[g] = v;
            }
            final double x = v - shift[g];
            n[g]++;
            s1[g] += x;
            s2[g] += x * x;
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final DevAccumulator o = (DevAccumulator) other;
        for (int g = 0; g < groups; g++) {
            if (o.n[g] == 0) {
                continue;
            }
            final int t = map[g];
            if (n[t] == 0) {
                n[t] = o.n[g];
                shift[t] = o.shift[g];
                s1[t] = o.s1[g];
                s2[t] = o.s2[g];
                continue;
            }
            // re-shift other's sums from its shift k2 to ours k1: x1 = x2 + (k2 - k1)
            final double delta = o.shift[g] - shift[t];
            final double m = o.n[g];
            s2[t] += o.s2[g] + 2 * delta * o.s1[g] + m * delta * delta;
            s1[t] += o.s1[g] + m * delta;
            n[t] += o.n[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        final long c = n[g];
        if (c == 0) {
            sink.nullValue();
            return;
        }
        final double mean = s1[g] / c;
        sink.value(Math.sqrt(Math.max(0, s2[g] / c - mean * mean)));
    }
}
