package io.jtick.core.query.exec;

import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.AggSpec;
import io.jtick.core.query.result.ResultSink;

import java.util.Arrays;

/**
 * Per-group state of one aggregate, in primitive arrays indexed by group. Float inputs skip NaN
 * and long inputs skip {@link Plan#NULL_LONG} when nullable (kdb's aggregates ignore nulls), except
 * first and last, which take the row as it is. Kernels run over the kept positions of a batch:
 * group {@code gid[i]} for position {@code sel[i]} ({@code i} when {@code sel} is null).
 */
abstract class Acc {
    final AggSpec spec;
    final Ev a;
    final Ev b;
    int capacity;

    Acc(final AggSpec spec, final Ev a, final Ev b) {
        this.spec = spec;
        this.a = a;
        this.b = b;
    }

    /** Makes room for {@code groups} groups (new groups start empty). */
    final void ensure(final int groups) {
        if (groups > capacity) {
            final int cap = Math.max(groups, Math.max(16, capacity << 1));
            grow(capacity, cap);
            capacity = cap;
        }
    }

    abstract void grow(int oldCapacity, int newCapacity);

    /**
     * Adds a batch's kept rows: group {@code gid[i]} for the i-th kept position. {@code longRuns}:
     * the groups come in long runs (sorted data, bars), so kernels that read-modify-write a group
     * fold each run in registers first (same-address updates row after row would serialize).
     */
    abstract void add(Batch batch, int[] gid, boolean longRuns);

    /** Folds {@code other}'s group g into this one's group {@code map[g]}; {@code other} covers later rows. */
    abstract void merge(Acc other, int[] map, int groups);

    /** Writes group g's value. */
    abstract void emit(int g, ResultSink sink, SymDict syms);

    static Acc of(final AggSpec spec, final int capacity, final SymDict.LocalMap syms) {
        final Ev a = spec.a() == null ? null : Ev.of(spec.a(), capacity);
        final Ev b = spec.b() == null ? null : Ev.of(spec.b(), capacity);
        switch (spec.kind()) {
            case COUNT:
                return new Count(spec);
            case SUM:
                return a.isLong ? new SumLong(spec, a) : new SumDouble(spec, a);
            case AVG:
                return new Avg(spec, a);
            case MIN:
            case MAX:
                return a.isLong ? new MinMaxLong(spec, a, spec.kind() == Query.AggKind.MIN)
                    : new MinMaxDouble(spec, a, spec.kind() == Query.AggKind.MIN);
            case FIRST:
            case LAST:
                if (a.type == ValueType.SYMBOL) {
                    return new FirstLastSym(spec, a, spec.kind() == Query.AggKind.FIRST, syms);
                }
                return a.isLong ? new FirstLastLong(spec, a, spec.kind() == Query.AggKind.FIRST)
                    : new FirstLastDouble(spec, a, spec.kind() == Query.AggKind.FIRST);
            case WAVG:
                return new Wavg(spec, a, b);
            case MEDIAN:
                return new Median(spec, a);
            case DEV:
                return new Dev(spec, a);
            default:
                throw new IllegalStateException("unhandled aggregate " + spec.kind());
        }
    }

    static final class Count extends Acc {
        long[] n = new long[0];

        Count(final AggSpec spec) {
            super(spec, null, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final long[] o = ((Count) other).n;
            for (int g = 0; g < groups; g++) {
                n[map[g]] += o[g];
            }
        }

        @Override
        void emit(final int g, final ResultSink sink, final SymDict syms) {
            sink.value(n[g]);
        }
    }

    static final class SumLong extends Acc {
        long[] s = new long[0];

        SumLong(final AggSpec spec, final Ev a) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final long[] o = ((SumLong) other).s;
            for (int g = 0; g < groups; g++) {
                s[map[g]] += o[g];
            }
        }

        @Override
        void emit(final int g, final ResultSink sink, final SymDict syms) {
            sink.value(s[g]);
        }
    }

    static final class SumDouble extends Acc {
        double[] s = new double[0];

        SumDouble(final AggSpec spec, final Ev a) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final double[] o = ((SumDouble) other).s;
            for (int g = 0; g < groups; g++) {
                s[map[g]] += o[g];
            }
        }

        @Override
        void emit(final int g, final ResultSink sink, final SymDict syms) {
            sink.value(s[g]);
        }
    }

    static final class Avg extends Acc {
        double[] s = new double[0];
        long[] n = new long[0];

        Avg(final AggSpec spec, final Ev a) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final Avg o = (Avg) other;
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

    static final class MinMaxLong extends Acc {
        private final boolean min;
        long[] v = new long[0];
        boolean[] has = new boolean[0];

        MinMaxLong(final AggSpec spec, final Ev a, final boolean min) {
            super(spec, a, null);
            this.min = min;
        }

        @Override
        void grow(final int oldCapacity, final int newCapacity) {
            v = Arrays.copyOf(v, newCapacity);
            has = Arrays.copyOf(has, newCapacity);
        }

        @Override
        void add(final Batch batch, final int[] gid, final boolean longRuns) {
            a.eval(batch);
            final long[] x = a.l;
            final int o = a.off;
            final int[] sel = batch.sel;
            final int count = batch.count;
            for (int i = 0; i < count; i++) {
                final long val = x[o + (sel == null ? i : sel[i])];
                if (a.nullable && val == Plan.NULL_LONG) {
                    continue;
                }
                put(gid[i], val);
            }
        }

        private void put(final int g, final long val) {
            if (!has[g]) {
                has[g] = true;
                v[g] = val;
            } else if (min ? val < v[g] : val > v[g]) {
                v[g] = val;
            }
        }

        @Override
        void merge(final Acc other, final int[] map, final int groups) {
            final MinMaxLong o = (MinMaxLong) other;
            for (int g = 0; g < groups; g++) {
                if (o.has[g]) {
                    put(map[g], o.v[g]);
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

    static final class MinMaxDouble extends Acc {
        private final boolean min;
        double[] v = new double[0];

        MinMaxDouble(final AggSpec spec, final Ev a, final boolean min) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final double[] o = ((MinMaxDouble) other).v;
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

    static final class FirstLastLong extends Acc {
        private final boolean first;
        long[] v = new long[0];
        boolean[] has = new boolean[0];

        FirstLastLong(final AggSpec spec, final Ev a, final boolean first) {
            super(spec, a, null);
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
            final long[] x = a.l;
            final int o = a.off;
            final int[] sel = batch.sel;
            final int count = batch.count;
            if (first) {
                for (int i = 0; i < count; i++) {
                    final int g = gid[i];
                    if (!has[g]) {
                        has[g] = true;
                        v[g] = x[o + (sel == null ? i : sel[i])];
                    }
                }
            } else {
                for (int i = 0; i < count; i++) {
                    final int g = gid[i];
                    has[g] = true;
                    v[g] = x[o + (sel == null ? i : sel[i])];
                }
            }
        }

        @Override
        void merge(final Acc other, final int[] map, final int groups) {
            final FirstLastLong o = (FirstLastLong) other;
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
            if (!has[g] || a.nullable && v[g] == Plan.NULL_LONG) {
                sink.nullValue();
            } else {
                sink.value(v[g]);
            }
        }
    }

    /** first/last of sym: stores query-wide sym ids. */
    static final class FirstLastSym extends Acc {
        private final boolean first;
        private final SymDict.LocalMap local;
        int[] v = new int[0];

        FirstLastSym(final AggSpec spec, final Ev a, final boolean first, final SymDict.LocalMap local) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final int[] o = ((FirstLastSym) other).v;
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

    static final class FirstLastDouble extends Acc {
        private final boolean first;
        double[] v = new double[0];
        boolean[] has = new boolean[0];

        FirstLastDouble(final AggSpec spec, final Ev a, final boolean first) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final FirstLastDouble o = (FirstLastDouble) other;
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

    /** {@code w wavg x}: sum(w*x) % sum(w). */
    static final class Wavg extends Acc {
        double[] sw = new double[0];
        double[] swx = new double[0];

        Wavg(final AggSpec spec, final Ev w, final Ev x) {
            super(spec, w, x);
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
                            final double wv = w[ow + i];
                            final int g = gid[i];
                            accW[g] += wv;
                            accWx[g] += wv * x[ox + i];
                        }
                    } else {
                        for (int i = 0; i < count; i++) {
                            final int p = sel[i];
                            final double wv = w[ow + p];
                            final int g = gid[i];
                            accW[g] += wv;
                            accWx[g] += wv * x[ox + p];
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
                        final double wv = w[ow + p];
                        runW += wv;
                        runWx += wv * x[ox + p];
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
        void merge(final Acc other, final int[] map, final int groups) {
            final Wavg o = (Wavg) other;
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

    /** Exact median: keeps every value of a group (kdb's {@code med}: mean of the two middle values when even). */
    static final class Median extends Acc {
        double[][] values = new double[0][];
        int[] n = new int[0];

        Median(final AggSpec spec, final Ev a) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final Median o = (Median) other;
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

    /**
     * Population standard deviation (kdb's {@code dev}), from sums of values shifted by the
     * group's first value so that large levels with small spread keep their precision.
     */
    static final class Dev extends Acc {
        long[] n = new long[0];
        double[] shift = new double[0];
        double[] s1 = new double[0];
        double[] s2 = new double[0];

        Dev(final AggSpec spec, final Ev a) {
            super(spec, a, null);
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
        void merge(final Acc other, final int[] map, final int groups) {
            final Dev o = (Dev) other;
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
}
