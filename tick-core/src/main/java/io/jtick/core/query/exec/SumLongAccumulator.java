package io.jtick.core.query.exec;

import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code sum} of long-kind values, as int64; nulls skipped. */
final class SumLongAccumulator extends Accumulator {
    long[] s = new long[0];

    SumLongAccumulator(final Ev a) {
        super(a, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        s = Arrays.copyOf(s, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final long[] x = a.l;
        final int o = a.off;
        final int[] sel = batch.sel;
        final int count = batch.count;
        final long[] acc = s;
        final boolean nullable = a.nullable;
        if (!longRuns) {
            for (int i = 0; i < count; i++) {
                final long v = x[o + (sel == null ? i : sel[i])];
                if (!nullable || v != Plan.NULL_LONG) {
                    acc[gid[i]] += v;
                }
            }
            return;
        }
        int i = 0;
        while (i < count) {
            final int g = gid[i];
            long run = 0;
            do {
                final long v = x[o + (sel == null ? i : sel[i])];
                if (!nullable || v != Plan.NULL_LONG) {
                    run += v;
                }
                i++;
            } while (i < count && gid[i] == g);
            acc[g] += run;
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final long[] o = ((SumLongAccumulator) other).s;
        for (int g = 0; g < groups; g++) {
            s[map[g]] += o[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        sink.value(s[g]);
    }
}
