package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A reversible transform applied to a block's little-endian values before the codec: a predictor
 * ({@link Kind#DELTA} value minus previous, {@link Kind#DOD} delta of deltas, {@link Kind#XOR} bits
 * xor previous bits, or none), optionally followed by a byte shuffle (byte {@code j} of value
 * {@code i} goes to {@code j * n + i}, so the mostly-zero high bytes of small deltas line up).
 * Each block is transformed on its own (its predictor starts from zero), so any block decodes
 * without its neighbours. Written as {@code delta}, {@code dod+shuffle}, {@code shuffle}, {@code none}.
 *
 * @param kind    predictor
 * @param shuffle byte shuffle after the predictor
 */
public record Transform(Kind kind, boolean shuffle) {
    /** No transform. */
    public static final Transform NONE = new Transform(Kind.NONE, false);

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    /** Predictors; {@link #AUTO} asks the writer to pick the predictor and shuffle that compress a sample of the column best. */
    public enum Kind {
        NONE, DELTA, DOD, XOR, SCALE, SCALE_DELTA, AUTO
    }

    /** Bytes a scale transform adds in front of a block: exponent, minimum, common divisor (three longs). */
    public static final int SCALE_HEADER = 24;
    private static final int MAX_EXPONENT = 12;
    private static final double[] POW10 = new double[MAX_EXPONENT + 1];

    static {
        double p = 1;
        for (int e = 0; e <= MAX_EXPONENT; e++) {
            POW10[e] = p;
            p *= 10;
        }
    }

    /** Resolved by the partition writer per column from a sample; never stored in a file. */
    public static final Transform AUTO = new Transform(Kind.AUTO, false);

    public Transform {
        if (kind == null) {
            throw new IllegalArgumentException("transform kind is required");
        }
    }

    /** True when this transform changes nothing. */
    public boolean isIdentity() {
        return kind == Kind.NONE && !shuffle;
    }

    /** The concrete transforms {@link #AUTO} chooses among for a type. */
    public static List<Transform> candidates(final ColumnType type) {
        final List<Transform> out = new ArrayList<>();
        for (final String t : new String[] {"none", "shuffle", "delta+shuffle", "dod+shuffle", "xor+shuffle", "scale+shuffle",
            "scale-delta+shuffle"}) {
            final Transform c = parse(t);
            if (c.appliesTo(type)) {
                out.add(c);
            }
        }
        return out;
    }

    /** Header code: predictor ordinal in the low bits, shuffle as bit 4. */
    public int code() {
        return kind.ordinal() | (shuffle ? 0x10 : 0);
    }

    /** Transform of a header code, or null when the code is unknown. */
    public static Transform fromCode(final int code) {
        final int k = code & 0x0f;
        if (k >= Kind.AUTO.ordinal() || (code & ~0x1f) != 0) {
            return null;
        }
        return new Transform(Kind.values()[k], (code & 0x10) != 0);
    }

    /** Parses {@code none}, {@code shuffle}, {@code delta}, {@code dod}, {@code xor}, each predictor with {@code +shuffle}. */
    public static Transform parse(final String text) {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final boolean shuffle = t.endsWith("+shuffle") || "shuffle".equals(t);
        final String k = "shuffle".equals(t) ? "none" : shuffle ? t.substring(0, t.length() - "+shuffle".length()) : t;
        return switch (k) {
            case "none" -> shuffle ? new Transform(Kind.NONE, true) : NONE;
            case "delta" -> new Transform(Kind.DELTA, shuffle);
            case "dod" -> new Transform(Kind.DOD, shuffle);
            case "xor" -> new Transform(Kind.XOR, shuffle);
            case "scale" -> new Transform(Kind.SCALE, shuffle);
            case "scale-delta" -> new Transform(Kind.SCALE_DELTA, shuffle);
            case "auto" -> AUTO;
            default -> throw new IllegalArgumentException("unknown transform [transform=" + text
                + ", known=none|shuffle|delta|dod|xor|scale|scale-delta|auto, each predictor optionally +shuffle]");
        };
    }

    /** Whether this transform applies to a column type (predictors need 2-, 4- or 8-byte values; delta/dod need integers). */
    public boolean appliesTo(final ColumnType type) {
        final int w = type.width();
        if (shuffle && w == 1) {
            return false;
        }
        return switch (kind) {
            case NONE -> true;
            case DELTA, DOD -> w >= 2 && type != ColumnType.FLOAT64 && type != ColumnType.FLOAT32;
            case XOR -> w >= 2;
            case SCALE, SCALE_DELTA -> type == ColumnType.FLOAT64 || type == ColumnType.INT64 || type == ColumnType.TIMESTAMP;
            case AUTO -> true;
            default -> false;
        };
    }

    @Override
    public String toString() {
        if (kind == Kind.NONE) {
            return shuffle ? "shuffle" : "none";
        }
        if (kind == Kind.AUTO) {
            return "auto";
        }
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + (shuffle ? "+shuffle" : "");
    }

    /** Bytes this transform adds to a block ({@link #SCALE_HEADER} for the scale kinds, else none). */
    public int overhead() {
        return kind == Kind.SCALE || kind == Kind.SCALE_DELTA ? SCALE_HEADER : 0;
    }

    /**
     * Transforms {@code length} bytes of {@code type} values from {@code src} into {@code dst}
     * (both from offset 0; {@code dst} and {@code scratch} at least {@code length + overhead()}
     * bytes). The result is {@code length + overhead()} bytes, in the returned array ({@code src}
     * itself for the identity).
     */
    public byte[] encode(final byte[] src, final int length, final ColumnType type, final byte[] dst, final byte[] scratch) {
        final int width = type.width();
        if (kind == Kind.AUTO) {
            throw new IllegalStateException("auto transform must be resolved before writing");
        }
        if (isIdentity()) {
            return src;
        }
        byte[] cur = src;
        final int total = length + overhead();
        if (kind != Kind.NONE) {
            final byte[] out = shuffle ? scratch : dst;
            if (overhead() > 0) {
                scale(cur, out, length, type == ColumnType.FLOAT64, kind == Kind.SCALE_DELTA);
            } else {
                predict(cur, out, length, width);
            }
            cur = out;
        }
        if (shuffle) {
            shuffle(cur, dst, total, width);
            cur = dst;
        }
        return cur;
    }

    /**
     * Scale (kind SCALE / SCALE_DELTA) over 8-byte values: doubles that are all decimals with at
     * most {@value #MAX_EXPONENT} digits become the integers {@code v * 10^e} (checked to convert
     * back bit for bit; otherwise their raw bits are used, e = -1); optionally delta; then the
     * block minimum is subtracted and the result divided by the values' greatest common divisor.
     * Out: header (e, min, gcd) then the quotients.
     */
    private static void scale(final byte[] src, final byte[] dst, final int length, final boolean floating, final boolean delta) {
        final int n = length / 8;
        int exponent = floating ? decimalExponent(src, n) : 0;
        final long[] x = new long[n];
        for (int i = 0; i < n; i++) {
            final long bits = (long) LONGS.get(src, i * 8);
            x[i] = !floating || exponent < 0 ? bits : (long) Math.rint(Double.longBitsToDouble(bits) * POW10[exponent]);
        }
        if (delta) {
            for (int i = n - 1; i > 0; i--) {
                x[i] -= x[i - 1];
            }
        }
        long min = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            min = Math.min(min, x[i]);
        }
        long gcd = 0;
        boolean overflow = false;
        for (int i = 0; i < n && gcd != 1; i++) {
            final long d = x[i] - min;
            if (d < 0) {
                overflow = true;
                break;
            }
            gcd = gcd(gcd, d);
        }
        if (overflow || gcd == 0) {
            gcd = 1;
        }
        if (n == 0) {
            min = 0;
        }
        LONGS.set(dst, 0, (long) exponent);
        LONGS.set(dst, 8, min);
        LONGS.set(dst, 16, gcd);
        for (int i = 0; i < n; i++) {
            LONGS.set(dst, SCALE_HEADER + i * 8, gcd == 1 ? x[i] - min : (x[i] - min) / gcd);
        }
    }

    /** The smallest e such that every value is an e-digit decimal that converts back exactly; -1 when none. */
    private static int decimalExponent(final byte[] src, final int n) {
        for (int e = 0; e <= MAX_EXPONENT; e++) {
            final double p = POW10[e];
            boolean ok = true;
            for (int i = 0; i < n && ok; i++) {
                final long bits = (long) LONGS.get(src, i * 8);
                final double v = Double.longBitsToDouble(bits);
                final double scaled = v * p;
                if (!(Math.abs(scaled) < 0x1p52)) {
                    ok = false;
                    break;
                }
                final long l = (long) Math.rint(scaled);
                ok = Double.doubleToRawLongBits(l / p) == bits;
            }
            if (ok) {
                return e;
            }
        }
        return -1;
    }

    private static long gcd(final long a, final long b) {
        long x = a;
        long y = b;
        while (y != 0) {
            final long t = x % y;
            x = y;
            y = t;
        }
        return x;
    }

    private void predict(final byte[] src, final byte[] dst, final int length, final int width) {
        final int n = length / width;
        switch (width) {
            case 8: {
                long prev = 0;
                long prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 8) {
                    final long v = (long) LONGS.get(src, p);
                    final long out;
                    if (kind == Kind.XOR) {
                        out = v ^ prev;
                    } else {
                        final long d = v - prev;
                        out = kind == Kind.DELTA ? d : d - prevDelta;
                        prevDelta = d;
                    }
                    prev = v;
                    LONGS.set(dst, p, out);
                }
                break;
            }
            case 4: {
                int prev = 0;
                int prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 4) {
                    final int v = (int) INTS.get(src, p);
                    final int out;
                    if (kind == Kind.XOR) {
                        out = v ^ prev;
                    } else {
                        final int d = v - prev;
                        out = kind == Kind.DELTA ? d : d - prevDelta;
                        prevDelta = d;
                    }
                    prev = v;
                    INTS.set(dst, p, out);
                }
                break;
            }
            case 2: {
                short prev = 0;
                short prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 2) {
                    final short v = (short) SHORTS.get(src, p);
                    final short out;
                    if (kind == Kind.XOR) {
                        out = (short) (v ^ prev);
                    } else {
                        final short d = (short) (v - prev);
                        out = kind == Kind.DELTA ? d : (short) (d - prevDelta);
                        prevDelta = d;
                    }
                    prev = v;
                    SHORTS.set(dst, p, out);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("predictor needs 2-, 4- or 8-byte values [transform=" + this + ", width=" + width + "]");
        }
    }

    private static void shuffle(final byte[] src, final byte[] dst, final int length, final int width) {
        final int n = length / width;
        int i = 0;
        if (width == 8) {
            final long[] m = new long[8];
            for (; i + 8 <= n; i += 8) {
                for (int r = 0; r < 8; r++) {
                    m[r] = (long) LONGS.get(src, (i + r) << 3);
                }
                transpose8(m);
                for (int j = 0; j < 8; j++) {
                    LONGS.set(dst, j * n + i, m[j]);
                }
            }
        }
        for (int j = 0; j < width; j++) {
            final int base = j * n;
            for (int k = i, p = i * width + j; k < n; k++, p += width) {
                dst[base + k] = src[p];
            }
        }
    }

    /** Transposes an 8×8 byte matrix held as 8 little-endian longs: byte j of row r becomes byte r of row j. */
    static void transpose8(final long[] m) {
        for (int a = 0; a < 4; a++) {
            final long t = ((m[a] >>> 32) ^ m[a + 4]) & 0x00000000FFFFFFFFL;
            m[a + 4] ^= t;
            m[a] ^= t << 32;
        }
        for (int a = 0; a < 8; a += 4) {
            for (int b = a; b < a + 2; b++) {
                final long t = ((m[b] >>> 16) ^ m[b + 2]) & 0x0000FFFF0000FFFFL;
                m[b + 2] ^= t;
                m[b] ^= t << 16;
            }
        }
        for (int a = 0; a < 8; a += 2) {
            final long t = ((m[a] >>> 8) ^ m[a + 1]) & 0x00FF00FF00FF00FFL;
            m[a + 1] ^= t;
            m[a] ^= t << 8;
        }
    }
}
