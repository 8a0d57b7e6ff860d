package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** {@code count}: rows per group ({@code count x} counts rows too: kdb counts nulls). */
final class CountAccumulator extends Accumulator {
    long[] n = new long[0];

    CountAccumulator() {
        super(null, null);
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        n = Arrays.copyOf(n, newCapacity);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        final long[] c = n;
        final int count = batch.count;
        if (!longRuns) {
            for (int i = 0; i < count; i++) {
                c[gid[i]]++;
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
            c[g] += i - start;
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final long[] o = ((CountAccumulator) other).n;
        for (int g = 0; g < groups; g++) {
            n[map[g]] += o[g];
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        sink.value(n[g]);
    }
}
