package io.jtick.core.query.exec;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.plan.Plan.PredSpec;

import java.util.Arrays;

/** A condition bound to one segment: keeps the positions of a batch where it holds. */
abstract sealed class Pred {
    final int slot;

    Pred(final int slot) {
        this.slot = slot;
    }

    /**
     * Writes to {@code out} the positions among {@code in[0..count)} (or {@code 0..count-1} when
     * {@code in} is null) where the condition holds, in order; returns how many.
     */
    abstract int filter(Batch b, int[] in, int count, int[] out);

    /** Binds a residual condition to a segment's date (time-of-day literals). */
    static Pred of(final PredSpec spec, final int day) {
        final Object[] v = new Object[spec.values().size()];
        for (int i = 0; i < v.length; i++) {
            final Object o = spec.values().get(i);
            v[i] = o instanceof Literals.TimeLit t ? (Object) t.resolve(day) : o;
        }
        if (spec.type().isDouble()) {
            final double[] x = new double[v.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = (Double) v[i];
            }
            switch (spec.op()) {
                case IN:
                    return new DoubleIn(spec.slot(), x);
                case WITHIN:
                    return new DoubleRange(spec.slot(), x[0], x[1]);
                default:
                    return new DoubleCmp(spec.slot(), spec.op(), x[0]);
            }
        }
        final long[] x = new long[v.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = (Long) v[i];
        }
        switch (spec.op()) {
            case IN:
                return new LongIn(spec.slot(), x);
            case WITHIN:
                return new LongRange(spec.slot(), x[0], x[1]);
            case GE:
                return new LongRange(spec.slot(), x[0], Long.MAX_VALUE);
            case LE:
                return new LongRange(spec.slot(), Long.MIN_VALUE, x[0]);
            case EQ:
                return new LongRange(spec.slot(), x[0], x[0]);
            default:
                return new LongCmp(spec.slot(), spec.op(), x[0]);
        }
    }

    /** {@code lo <= x <= hi} on a long-kind column. */
    static final class LongRange extends Pred {
        private final long lo;
        private final long hi;

        LongRange(final int slot, final long lo, final long hi) {
            super(slot);
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final long[] x = b.l[slot];
            final int o = b.off[slot];
            int k = 0;
            if (in == null) {
                for (int p = 0; p < count; p++) {
                    final long v = x[o + p];
                    out[k] = p;
                    k += v >= lo && v <= hi ? 1 : 0;
                }
            } else {
                for (int i = 0; i < count; i++) {
                    final int p = in[i];
                    final long v = x[o + p];
                    out[k] = p;
                    k += v >= lo && v <= hi ? 1 : 0;
                }
            }
            return k;
        }
    }

    static final class LongCmp extends Pred {
        private final Op op;
        private final long value;

        LongCmp(final int slot, final Op op, final long value) {
            super(slot);
            this.op = op;
            this.value = value;
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final long[] x = b.l[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                final long v = x[o + p];
                final boolean keep;
                switch (op) {
                    case NE:
                        keep = v != value;
                        break;
                    case LT:
                        keep = v < value;
                        break;
                    case GT:
                        keep = v > value;
                        break;
                    default:
                        throw new IllegalStateException("unhandled op " + op);
                }
                if (keep) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }

    static final class LongIn extends Pred {
        private final long[] values;

        LongIn(final int slot, final long[] values) {
            super(slot);
            this.values = values.clone();
            Arrays.sort(this.values);
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final long[] x = b.l[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                if (Arrays.binarySearch(values, x[o + p]) >= 0) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }

    static final class DoubleRange extends Pred {
        private final double lo;
        private final double hi;

        DoubleRange(final int slot, final double lo, final double hi) {
            super(slot);
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final double[] x = b.d[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                final double v = x[o + p];
                if (v >= lo && v <= hi) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }

    static final class DoubleCmp extends Pred {
        private final Op op;
        private final double value;

        DoubleCmp(final int slot, final Op op, final double value) {
            super(slot);
            this.op = op;
            this.value = value;
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final double[] x = b.d[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                final double v = x[o + p];
                final boolean keep;
                switch (op) {
                    case EQ:
                        keep = v == value;
                        break;
                    case NE:
                        keep = v != value;
                        break;
                    case LT:
                        keep = v < value;
                        break;
                    case LE:
                        keep = v <= value;
                        break;
                    case GT:
                        keep = v > value;
                        break;
                    case GE:
                        keep = v >= value;
                        break;
                    default:
                        throw new IllegalStateException("unhandled op " + op);
                }
                if (keep) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }

    static final class DoubleIn extends Pred {
        private final double[] values;

        DoubleIn(final int slot, final double[] values) {
            super(slot);
            this.values = values.clone();
            Arrays.sort(this.values);
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final double[] x = b.d[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                if (Arrays.binarySearch(values, x[o + p]) >= 0) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }

    /** Keeps rows whose local sym id is marked (sym in / sym != as a residual). */
    static final class SymMask extends Pred {
        private final boolean[] keep;
        private final boolean keepUnknown;

        SymMask(final int slot, final boolean[] keep, final boolean keepUnknown) {
            super(slot);
            this.keep = keep;
            this.keepUnknown = keepUnknown;
        }

        @Override
        int filter(final Batch b, final int[] in, final int count, final int[] out) {
            b.load(slot);
            final int[] x = b.s[slot];
            final int o = b.off[slot];
            int k = 0;
            for (int i = 0; i < count; i++) {
                final int p = in == null ? i : in[i];
                final int id = x[o + p];
                if (id >= 0 && id < keep.length ? keep[id] : keepUnknown) {
                    out[k++] = p;
                }
            }
            return k;
        }
    }
}
