package io.jtick.core.query.exec;

import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/** first/last of sym: stores query-wide sym ids. */
final class FirstLastSymAccumulator extends Accumulator {
    private final boolean first;
    private final SymDict.LocalMap local;
    int[] v = new int[0];

    FirstLastSymAccumulator(final Ev a, final boolean first, final SymDict.LocalMap local) {
        super(a, null);
        this.first = first;
        this.local = local;
    }

    @Override
    void grow(final int oldCapacity, final int newCapacity) {
        v = Arrays.copyOf(v, newCapacity);
        Arrays.fill(v, oldCapacity, newCapacity, -1);
    }

    @Override
    void add(final Batch batch, final int[] gid, final boolean longRuns) {
        a.eval(batch);
        final int[] x = a.s;
        final int o = a.off;
        final int[] sel = batch.sel;
        final int count = batch.count;
        for (int i = 0; i < count; i++) {
            final int g = gid[i];
            if (!first || v[g] < 0) {
                v[g] = local.global(x[o + (sel == null ? i : sel[i])]);
            }
        }
    }

    @Override
    void merge(final Accumulator other, final int[] map, final int groups) {
        final int[] o = ((FirstLastSymAccumulator) other).v;
        for (int g = 0; g < groups; g++) {
            if (o[g] >= 0 && (!first || v[map[g]] < 0)) {
                v[map[g]] = o[g];
            }
        }
    }

    @Override
    void emit(final int g, final ResultSink sink, final SymDict syms) {
        if (v[g] < 0) {
            sink.nullValue();
        } else {
            sink.symbol(syms.name(v[g]));
        }
    }
}
