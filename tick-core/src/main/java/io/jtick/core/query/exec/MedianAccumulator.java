package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** Exact median: keeps every value of a group (kdb's {@code med}: mean of the two middle values when even). */
final class MedianAccumulator extends Accumulator {
    double[][] values = new double[0][];
    int[] n = new int[0];

    MedianAccumulator(final Ev a) {
        super(a, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        values = Arrays.copyOf(values, newCapacity);
        n = Arrays.copyOf(n, newCapacity);
    }

    private void put(final int g, final double v) {
        double[] vs = values[g];
        if (vs == null) {
            vs = new double[16];
            values[g] = vs;
        } else if (n[g] == vs.length) {
            vs = Arrays.copyOf(vs, vs.length << 1);
            values[g] = vs;
        }
        vs[n[g]++] = v;
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final int[] sel = batch.sel;
        final int count = batch.count;
        for (int i = 0; i < count; i++) {
            final double v = a.dbl(sel == null ? i : sel[i]);
            if (v == v) {
                put(gid[i], v);
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final MedianAccumulator o = (MedianAccumulator) other;
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < o.n[g]; i++) {
                put(map[g], o.values[g][i]);
            }
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        final int c = n[g];
        if (c == 0) {
            sink.nullValue();
            return;
        }
        final double[] vs = values[g];
        final int mid = c >>> 1;
        final double hi = select(vs, 0, c - 1, mid);
        if ((c & 1) == 1) {
            sink.value(hi);
        } else {
            double lo = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < mid; i++) {
                lo = Math.max(lo, vs[i]);
            }
            sink.value((lo + hi) / 2);
        }
    }

    /** Quickselect: places the k-th smallest at index k, smaller ones before it; returns it. */
    private static double select(final double[] a, final int left, final int right, final int k) {
        int lo = left;
        int hi = right;
        while (hi > lo) {
            final double pivot = a[(lo + hi) >>> 1];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] < pivot) {
                    i++;
                }
                while (a[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    final double t = a[i];
                    a[i] = a[j];
                    a[j] = t;
                    i++;
                    j--;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                break;
            }
        }
        return a[k];
    }
}
