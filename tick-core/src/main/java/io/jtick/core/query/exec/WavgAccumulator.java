package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code w wavg x}: sum(w*x) % sum(w) over the rows where neither is null (a null value drops its weight too). */
final class WavgAccumulator extends Accumulator {
    double[] sw = new double[0];
    double[] swx = new double[0];

    WavgAccumulator(final Ev w, final Ev x) {
        super(w, x);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        sw = Arrays.copyOf(sw, newCapacity);
        swx = Arrays.copyOf(swx, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        b.eval(batch);
        final int[] sel = batch.sel;
        final int count = batch.count;
        final double[] accW = sw;
        final double[] accWx = swx;
        if (a.isLong && !a.nullable && !b.isLong && !b.nullable) {
            final long[] w = a.l;
            final double[] x = b.d;
            final int ow = a.off;
            final int ox = b.off;
            if (!longRuns) {
                if (sel == null) {
                    for (int i = 0; i < count; i++) {
                        final double xv = x[ox + i];
                        if (xv == xv) {
                            final double wv = w[ow + i];
                            final int g = gid[i];
                            accW[g] += wv;
                            accWx[g] += wv * xv;
                        }
                    }
                } else {
                    for (int i = 0; i < count; i++) {
                        final int p = sel[i];
                        final double xv = x[ox + p];
                        if (xv == xv) {
                            final double wv = w[ow + p];
                            final int g = gid[i];
                            accW[g] += wv;
                            accWx[g] += wv * xv;
                        }
                    }
                }
                return;
            }
            int i = 0;
            while (i < count) {
                final int g = gid[i];
                double runW = 0;
                double runWx = 0;
                do {
                    final int p = sel == null ? i : sel[i];
                    final double xv = x[ox + p];
                    if (xv == xv) {
                        final double wv = w[ow + p];
                        runW += wv;
                        runWx += wv * xv;
                    }
                    i++;
                } while (i < count && gid[i] == g);
                accW[g] += runW;
                accWx[g] += runWx;
            }
            return;
        }
        for (int i = 0; i < count; i++) {
            final int p = sel == null ? i : sel[i];
            final double wv = a.dbl(p);
            final double xv = b.dbl(p);
            if (wv == wv && xv == xv) {
                final int g = gid[i];
                accW[g] += wv;
                accWx[g] += wv * xv;
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final WavgAccumulator o = (WavgAccumulator) other;
        for (int g = 0; g < groups; g++) {
            sw[map[g]] += o.sw[g];
            swx[map[g]] += o.swx[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        if (sw[g] == 0) {
            sink.nullValue();
        } else {
            sink.value(swx[g] / sw[g]);
        }
    }
}
