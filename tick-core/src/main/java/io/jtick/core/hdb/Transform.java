package io.jtick.core.hdb;

import io.jtick.core.schema.ColumnType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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

    /** Predictors. */
    public enum Kind {
        NONE, DELTA, DOD, XOR
    }

    public Transform {
        if (kind == null) {
            throw new IllegalArgumentException("transform kind is required");
        }
    }

    /** True when this transform changes nothing. */
    public boolean isIdentity() {
        return kind == Kind.NONE && !shuffle;
    }

    /** Header code: predictor ordinal in the low bits, shuffle as bit 4. */
    public int code() {
        return kind.ordinal() | (shuffle ? 0x10 : 0);
    }

    /** Transform of a header code, or null when the code is unknown. */
    public static Transform fromCode(final int code) {
        final int k = code & 0x0f;
        if (k >= Kind.values().length || (code & ~0x1f) != 0) {
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
            default -> throw new IllegalArgumentException("unknown transform [transform=" + text
                + ", known=none|shuffle|delta|dod|xor, each predictor optionally +shuffle]");
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
            default -> false;
        };
    }

    @Override
    public String toString() {
        if (kind == Kind.NONE) {
            return shuffle ? "shuffle" : "none";
        }
        return kind.name().toLowerCase(Locale.ROOT) + (shuffle ? "+shuffle" : "");
    }

    /**
     * Transforms {@code length} bytes of {@code width}-byte values from {@code src} into {@code dst}
     * (both from offset 0; {@code scratch} at least {@code length} bytes when both steps run).
     * Returns the array holding the result ({@code src} itself for the identity).
     */
    public byte[] encode(final byte[] src, final int length, final int width, final byte[] dst, final byte[] scratch) {
        if (isIdentity()) {
            return src;
        }
        byte[] cur = src;
        if (kind != Kind.NONE) {
            final byte[] out = shuffle ? scratch : dst;
            predict(cur, out, length, width);
            cur = out;
        }
        if (shuffle) {
            shuffle(cur, dst, length, width);
            cur = dst;
        }
        return cur;
    }

    /** Reverses {@link #encode}: from {@code src} into {@code dst}, using {@code scratch}; returns the array holding the raw values. */
    public byte[] decode(final byte[] src, final int length, final int width, final byte[] dst, final byte[] scratch) {
        if (isIdentity()) {
            return src;
        }
        byte[] cur = src;
        if (shuffle) {
            final byte[] out = kind != Kind.NONE ? scratch : dst;
            unshuffle(cur, out, length, width);
            cur = out;
        }
        if (kind != Kind.NONE) {
            unpredict(cur, dst, length, width);
            cur = dst;
        }
        return cur;
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

    private void unpredict(final byte[] src, final byte[] dst, final int length, final int width) {
        final int n = length / width;
        switch (width) {
            case 8: {
                long prev = 0;
                long prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 8) {
                    final long e = (long) LONGS.get(src, p);
                    final long v;
                    if (kind == Kind.XOR) {
                        v = e ^ prev;
                    } else {
                        final long d = kind == Kind.DELTA ? e : e + prevDelta;
                        v = prev + d;
                        prevDelta = d;
                    }
                    prev = v;
                    LONGS.set(dst, p, v);
                }
                break;
            }
            case 4: {
                int prev = 0;
                int prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 4) {
                    final int e = (int) INTS.get(src, p);
                    final int v;
                    if (kind == Kind.XOR) {
                        v = e ^ prev;
                    } else {
                        final int d = kind == Kind.DELTA ? e : e + prevDelta;
                        v = prev + d;
                        prevDelta = d;
                    }
                    prev = v;
                    INTS.set(dst, p, v);
                }
                break;
            }
            case 2: {
                short prev = 0;
                short prevDelta = 0;
                for (int i = 0, p = 0; i < n; i++, p += 2) {
                    final short e = (short) SHORTS.get(src, p);
                    final short v;
                    if (kind == Kind.XOR) {
                        v = (short) (e ^ prev);
                    } else {
                        final short d = kind == Kind.DELTA ? e : (short) (e + prevDelta);
                        v = (short) (prev + d);
                        prevDelta = d;
                    }
                    prev = v;
                    SHORTS.set(dst, p, v);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("predictor needs 2-, 4- or 8-byte values [transform=" + this + ", width=" + width + "]");
        }
    }

    private static void shuffle(final byte[] src, final byte[] dst, final int length, final int width) {
        final int n = length / width;
        for (int j = 0; j < width; j++) {
            final int base = j * n;
            for (int i = 0, p = j; i < n; i++, p += width) {
                dst[base + i] = src[p];
            }
        }
    }

    private static void unshuffle(final byte[] src, final byte[] dst, final int length, final int width) {
        final int n = length / width;
        for (int j = 0; j < width; j++) {
            final int base = j * n;
            for (int i = 0, p = j; i < n; i++, p += width) {
                dst[p] = src[base + i];
            }
        }
    }
}
