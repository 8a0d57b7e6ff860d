package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import org.agrona.UnsafeApi;

/**
 * Reverses a {@link Transform} from any memory (a mapped file, a direct buffer, a byte array)
 * straight into any destination (the engine's {@code long[]}/{@code double[]} buffers, a cache
 * entry, a byte array): tile by tile, the byte planes are un-shuffled into a small tile that stays
 * in L1, then the predictor or the scale is undone from the tile into the destination. Memory is
 * addressed as Unsafe (base object, offset) pairs, base null for off-heap. One decoder per thread
 * (it owns its tiles).
 */
final class BlockDecoder {
    /** Values per tile. */
    static final int TILE = 1024;
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long DOUBLE_BASE = UnsafeApi.arrayBaseOffset(double[].class);
    private static final double[] POW10 = new double[13];

    static {
        double p = 1;
        for (int e = 0; e < POW10.length; e++) {
            POW10[e] = p;
            p *= 10;
        }
    }

    private final long[] tile = new long[TILE];
    private final double[] doubles = new double[TILE];

    /**
     * Decodes {@code length} raw bytes of {@code type} values, transformed by {@code t}, from
     * {@code (src, srcOff)} ({@code length + t.overhead()} bytes) into {@code (dst, dstOff)}.
     *
     * @throws IllegalArgumentException when a scale header is out of range
     */
    void decode(final Transform t, final Object src, final long srcOff, final int length, final ColumnType type, final Object dst,
                final long dstOff) {
        if (t.isIdentity()) {
            UnsafeApi.copyMemory(src, srcOff, dst, dstOff, length);
            return;
        }
        switch (type.width()) {
            case 8 -> decode8(t, src, srcOff, length, type == ColumnType.FLOAT64, dst, dstOff);
            case 4 -> decode4(t, src, srcOff, length, dst, dstOff);
            case 2 -> decode2(t, src, srcOff, length, dst, dstOff);
            default -> throw new IllegalArgumentException("no transform for 1-byte values [transform=" + t + "]");
        }
    }

    /**
     * Reverses {@link Transform#encode}: {@code src} holds {@code length + t.overhead()} bytes; the
     * {@code length} raw bytes end up in the returned array ({@code dst}, or {@code src} for the
     * identity). The column reader decodes with a decoder of its own straight into its destination
     * instead.
     */
    static byte[] decode(final Transform t, final byte[] src, final int length, final ColumnType type, final byte[] dst) {
        if (t.isIdentity()) {
            return src;
        }
        final long base = UnsafeApi.arrayBaseOffset(byte[].class);
        new BlockDecoder().decode(t, src, base, length, type, dst, base);
        return dst;
    }

    private void decode8(final Transform t, final Object src, final long so, final int length, final boolean floating, final Object dst,
                         final long dstOff) {
        final int words = (length + t.overhead()) >>> 3;
        final boolean shuffle = t.shuffle();
        final Transform.Kind kind = t.kind();
        final boolean scale = kind == Transform.Kind.SCALE || kind == Transform.Kind.SCALE_DELTA;
        final boolean delta = kind == Transform.Kind.SCALE_DELTA;
        int first = 0;
        long exponent = -1;
        long min = 0;
        long gcd = 1;
        if (scale) {
            exponent = word8(src, so, words, 0, shuffle);
            min = word8(src, so, words, 1, shuffle);
            gcd = word8(src, so, words, 2, shuffle);
            if (exponent < -1 || exponent >= POW10.length) {
                throw new IllegalArgumentException("scale exponent out of range [exponent=" + exponent + "]");
            }
            first = 3;
        }
        final boolean divide = scale && floating && exponent >= 0;
        final double p = divide ? POW10[(int) exponent] : 1;
        final long[] x = tile;
        final double[] q = doubles;
        long prev = 0;
        long prevDelta = 0;
        long at = dstOff;
        for (int w0 = first; w0 < words; w0 += TILE) {
            final int m = Math.min(TILE, words - w0);
            if (shuffle) {
                unshuffle8(src, so, words, w0, m, x);
            } else {
                UnsafeApi.copyMemory(src, so + ((long) w0 << 3), x, LONG_BASE, (long) m << 3);
            }
            switch (kind) {
                case NONE:
                    break;
                case DELTA:
                    for (int j = 0; j < m; j++) {
                        prev += x[j];
                        x[j] = prev;
                    }
                    break;
                case DOD:
                    for (int j = 0; j < m; j++) {
                        prevDelta += x[j];
                        prev += prevDelta;
                        x[j] = prev;
                    }
                    break;
                case XOR:
                    for (int j = 0; j < m; j++) {
                        prev ^= x[j];
                        x[j] = prev;
                    }
                    break;
                default:
                    if (delta) {
                        for (int j = 0; j < m; j++) {
                            prev += min + gcd * x[j];
                            x[j] = prev;
                        }
                    } else {
                        // one loop for every divisor (1 too): a branch on the data's divisor was met only by
                        // some days, so compiled code trained on others threw itself away on the first block with it
                        for (int j = 0; j < m; j++) {
                            x[j] = min + gcd * x[j];
                        }
                    }
                    if (divide) {
                        for (int j = 0; j < m; j++) {
                            q[j] = x[j];
                        }
                        for (int j = 0; j < m; j++) {
                            q[j] = q[j] / p;
                        }
                        UnsafeApi.copyMemory(q, DOUBLE_BASE, dst, at, (long) m << 3);
                        at += (long) m << 3;
                        continue;
                    }
                    break;
            }
            UnsafeApi.copyMemory(x, LONG_BASE, dst, at, (long) m << 3);
            at += (long) m << 3;
        }
    }

    /** Word {@code i} of {@code n} 8-byte words, plain or byte-shuffled (byte j of word i at {@code j * n + i}). */
    private static long word8(final Object src, final long so, final int n, final int i, final boolean shuffle) {
        if (!shuffle) {
            return UnsafeApi.getLong(src, so + ((long) i << 3));
        }
        long v = 0;
        for (int j = 7; j >= 0; j--) {
            v = v << 8 | UnsafeApi.getByte(src, so + (long) j * n + i) & 0xff;
        }
        return v;
    }

    /** Words {@code [w0, w0 + m)} of {@code n} byte-shuffled 8-byte words into {@code out[0..m)}: 8×8 byte transposes. */
    private static void unshuffle8(final Object src, final long so, final int n, final int w0, final int m, final long[] out) {
        int j = 0;
        for (; j + 8 <= m; j += 8) {
            final long at = so + w0 + j;
            long m0 = UnsafeApi.getLong(src, at);
            long m1 = UnsafeApi.getLong(src, at + n);
            long m2 = UnsafeApi.getLong(src, at + 2L * n);
            long m3 = UnsafeApi.getLong(src, at + 3L * n);
            long m4 = UnsafeApi.getLong(src, at + 4L * n);
            long m5 = UnsafeApi.getLong(src, at + 5L * n);
            long m6 = UnsafeApi.getLong(src, at + 6L * n);
            long m7 = UnsafeApi.getLong(src, at + 7L * n);
            long t;
            t = ((m0 >>> 32) ^ m4) & 0x00000000FFFFFFFFL;
            m4 ^= t;
            m0 ^= t << 32;
            t = ((m1 >>> 32) ^ m5) & 0x00000000FFFFFFFFL;
            m5 ^= t;
            m1 ^= t << 32;
            t = ((m2 >>> 32) ^ m6) & 0x00000000FFFFFFFFL;
            m6 ^= t;
            m2 ^= t << 32;
            t = ((m3 >>> 32) ^ m7) & 0x00000000FFFFFFFFL;
            m7 ^= t;
            m3 ^= t << 32;
            t = ((m0 >>> 16) ^ m2) & 0x0000FFFF0000FFFFL;
            m2 ^= t;
            m0 ^= t << 16;
            t = ((m1 >>> 16) ^ m3) & 0x0000FFFF0000FFFFL;
            m3 ^= t;
            m1 ^= t << 16;
            t = ((m4 >>> 16) ^ m6) & 0x0000FFFF0000FFFFL;
            m6 ^= t;
            m4 ^= t << 16;
            t = ((m5 >>> 16) ^ m7) & 0x0000FFFF0000FFFFL;
            m7 ^= t;
            m5 ^= t << 16;
            t = ((m0 >>> 8) ^ m1) & 0x00FF00FF00FF00FFL;
            m1 ^= t;
            m0 ^= t << 8;
            t = ((m2 >>> 8) ^ m3) & 0x00FF00FF00FF00FFL;
            m3 ^= t;
            m2 ^= t << 8;
            t = ((m4 >>> 8) ^ m5) & 0x00FF00FF00FF00FFL;
            m5 ^= t;
            m4 ^= t << 8;
            t = ((m6 >>> 8) ^ m7) & 0x00FF00FF00FF00FFL;
            m7 ^= t;
            m6 ^= t << 8;
            out[j] = m0;
            out[j + 1] = m1;
            out[j + 2] = m2;
            out[j + 3] = m3;
            out[j + 4] = m4;
            out[j + 5] = m5;
            out[j + 6] = m6;
            out[j + 7] = m7;
        }
        for (; j < m; j++) {
            out[j] = word8(src, so, n, w0 + j, true);
        }
    }

    private static void decode4(final Transform t, final Object src, final long so, final int length, final Object dst, final long dstOff) {
        final int n = length >>> 2;
        final Transform.Kind kind = t.kind();
        int prev = 0;
        int prevDelta = 0;
        for (int i = 0; i < n; i++) {
            int v;
            if (t.shuffle()) {
                v = UnsafeApi.getByte(src, so + i) & 0xff | (UnsafeApi.getByte(src, so + n + i) & 0xff) << 8
                    | (UnsafeApi.getByte(src, so + 2L * n + i) & 0xff) << 16 | (UnsafeApi.getByte(src, so + 3L * n + i) & 0xff) << 24;
            } else {
                v = UnsafeApi.getInt(src, so + ((long) i << 2));
            }
            switch (kind) {
                case DELTA -> {
                    prev += v;
                    v = prev;
                }
                case DOD -> {
                    prevDelta += v;
                    prev += prevDelta;
                    v = prev;
                }
                case XOR -> {
                    prev ^= v;
                    v = prev;
                }
                case NONE -> {
                }
                default -> throw new IllegalArgumentException("transform needs 8-byte values [transform=" + t + "]");
            }
            UnsafeApi.putInt(dst, dstOff + ((long) i << 2), v);
        }
    }

    private static void decode2(final Transform t, final Object src, final long so, final int length, final Object dst, final long dstOff) {
        final int n = length >>> 1;
        final Transform.Kind kind = t.kind();
        short prev = 0;
        short prevDelta = 0;
        for (int i = 0; i < n; i++) {
            short v;
            if (t.shuffle()) {
                v = (short) (UnsafeApi.getByte(src, so + i) & 0xff | (UnsafeApi.getByte(src, so + n + i) & 0xff) << 8);
            } else {
                v = UnsafeApi.getShort(src, so + ((long) i << 1));
            }
            switch (kind) {
                case DELTA -> {
                    prev += v;
                    v = prev;
                }
                case DOD -> {
                    prevDelta += v;
                    prev += prevDelta;
                    v = prev;
                }
                case XOR -> {
                    prev ^= v;
                    v = prev;
                }
                case NONE -> {
                }
                default -> throw new IllegalArgumentException("transform needs 8-byte values [transform=" + t + "]");
            }
            UnsafeApi.putShort(dst, dstOff + ((long) i << 1), v);
        }
    }
}
