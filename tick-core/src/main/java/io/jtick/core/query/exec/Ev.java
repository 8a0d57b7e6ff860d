package io.jtick.core.query.exec;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.ArithSpec;
import io.jtick.core.query.plan.Plan.ColSpec;
import io.jtick.core.query.plan.Plan.DateSpec;
import io.jtick.core.query.plan.Plan.ExprSpec;
import io.jtick.core.query.plan.Plan.NumSpec;
import io.jtick.core.query.plan.Plan.XbarSpec;

/**
 * A runtime expression over a batch: after {@link #eval(Batch)}, the value at a kept position p is
 * {@code l[off + p]} (long kinds), {@code d[off + p]} (floats) or {@code s[off + p]} (sym ids).
 * Long-kind nulls are {@link Plan#NULL_LONG} (only when {@link #nullable}); float nulls are NaN.
 */
abstract sealed class Ev {
    final ValueType type;
    final boolean nullable;
    final boolean isLong;
    long[] l;
    double[] d;
    int[] s;
    int off;

    Ev(final ValueType type, final boolean nullable) {
        this.type = type;
        this.nullable = nullable;
        this.isLong = type.isLong();
    }

    abstract void eval(Batch b);

    /** The value at position p as a double (NaN for null). */
    final double dbl(final int p) {
        if (isLong) {
            final long v = l[off + p];
            return nullable && v == Plan.NULL_LONG ? Double.NaN : v;
        }
        return d[off + p];
    }

    static Ev of(final ExprSpec spec, final int capacity) {
        if (spec instanceof ColSpec c) {
            return new Column(c);
        }
        if (spec instanceof NumSpec n) {
            return new Constant(n, capacity);
        }
        if (spec instanceof ArithSpec a) {
            return new Arith(a, of(a.left(), capacity), of(a.right(), capacity), capacity);
        }
        if (spec instanceof XbarSpec x) {
            return new Xbar(x, of(x.arg(), capacity), capacity);
        }
        if (spec instanceof DateSpec) {
            return new Date();
        }
        throw new IllegalStateException("unhandled expression " + spec);
    }

    /** A column slot: no copy. */
    static final class Column extends Ev {
        final int slot;

        Column(final ColSpec c) {
            super(c.type(), c.nullable());
            this.slot = c.slot();
        }

        @Override
        void eval(final Batch b) {
            b.load(slot);
            l = b.l[slot];
            d = b.d[slot];
            s = b.s[slot];
            off = b.off[slot];
        }
    }

    static final class Date extends Ev {
        Date() {
            super(ValueType.DATE, false);
        }

        @Override
        void eval(final Batch b) {
            b.load(b.dateSlot);
            l = b.l[b.dateSlot];
            off = 0;
        }
    }

    static final class Constant extends Ev {
        Constant(final NumSpec n, final int capacity) {
            super(n.type(), false);
            if (isLong) {
                l = new long[capacity];
                java.util.Arrays.fill(l, n.longValue());
            } else {
                d = new double[capacity];
                java.util.Arrays.fill(d, n.value());
            }
        }

        @Override
        void eval(final Batch b) {
            off = 0;
        }
    }

    /** {@code a op b} in float64; null when either side is. */
    static final class Arith extends Ev {
        private final char op;
        private final Ev a;
        private final Ev b;

        Arith(final ArithSpec spec, final Ev a, final Ev b, final int capacity) {
            super(ValueType.FLOAT64, spec.nullable());
            this.op = spec.op();
            this.a = a;
            this.b = b;
            this.d = new double[capacity];
        }

        @Override
        void eval(final Batch batch) {
            a.eval(batch);
            b.eval(batch);
            final double[] out = d;
            final int[] sel = batch.sel;
            final int count = batch.count;
            if (!a.isLong && !b.isLong) {
                final double[] x = a.d;
                final double[] y = b.d;
                final int ox = a.off;
                final int oy = b.off;
                if (sel == null) {
                    switch (op) {
                        case '+':
                            for (int p = 0; p < count; p++) {
                                out[p] = x[ox + p] + y[oy + p];
                            }
                            break;
                        case '-':
                            for (int p = 0; p < count; p++) {
                                out[p] = x[ox + p] - y[oy + p];
                            }
                            break;
                        case '*':
                            for (int p = 0; p < count; p++) {
                                out[p] = x[ox + p] * y[oy + p];
                            }
                            break;
                        default:
                            for (int p = 0; p < count; p++) {
                                out[p] = x[ox + p] / y[oy + p];
                            }
                            break;
                    }
                } else {
                    for (int i = 0; i < count; i++) {
                        final int p = sel[i];
                        out[p] = apply(op, x[ox + p], y[oy + p]);
                    }
                }
            } else {
                for (int i = 0; i < count; i++) {
                    final int p = sel == null ? i : sel[i];
                    out[p] = apply(op, a.dbl(p), b.dbl(p));
                }
            }
            off = 0;
        }

        private static double apply(final char op, final double x, final double y) {
            switch (op) {
                case '+':
                    return x + y;
                case '-':
                    return x - y;
                case '*':
                    return x * y;
                default:
                    return x / y;
            }
        }
    }

    /** {@code size xbar x}: {@code size * floor(x / size)}. */
    static final class Xbar extends Ev {
        private final long longSize;
        private final double doubleSize;
        private final Ev arg;

        Xbar(final XbarSpec spec, final Ev arg, final int capacity) {
            super(spec.type(), spec.nullable());
            this.longSize = spec.longSize();
            this.doubleSize = spec.doubleSize();
            this.arg = arg;
            if (isLong) {
                l = new long[capacity];
            } else {
                d = new double[capacity];
            }
        }

        @Override
        void eval(final Batch b) {
            arg.eval(b);
            final int[] sel = b.sel;
            final int count = b.count;
            if (isLong) {
                final long[] x = arg.l;
                final int ox = arg.off;
                final long size = longSize;
                for (int i = 0; i < count; i++) {
                    final int p = sel == null ? i : sel[i];
                    final long v = x[ox + p];
                    l[p] = nullable && v == Plan.NULL_LONG ? v : Math.floorDiv(v, size) * size;
                }
            } else {
                for (int i = 0; i < count; i++) {
                    final int p = sel == null ? i : sel[i];
                    d[p] = doubleSize * Math.floor(arg.dbl(p) / doubleSize);
                }
            }
            off = 0;
        }
    }
}
