package io.jtick.core.testing;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kdb+ objects for tests, written independently of the code under test: {@link Obj}s that serialize
 * themselves in either byte order (c.java writes big-endian, q little-endian), and {@link #read}, a
 * small deserializer (vectors → Java arrays, general lists → {@code List}, tables and dictionaries →
 * {@code LinkedHashMap}, errors → {@link Err}, {@code ::} → {@link #GENERIC_NULL}).
 */
public final class KdbObjects {
    /** {@code ::}. */
    public static final Object GENERIC_NULL = new Object() {
        @Override
        public String toString() {
            return "::";
        }
    };

    /** A kdb+ error read from a message. */
    public record Err(String text) {
    }

    /** A symbol atom read from a message (strings are char vectors, symbols are these). */
    public record Sym(String name) {
    }

    /** A kdb+ atom or vector of a timespan/timestamp/date read from a message: its raw value(s). */
    public record Temporal(int type, long[] values) {
    }

    /** One object, written in the byte order asked. */
    @FunctionalInterface
    public interface Obj {
        void write(ByteBuf b, boolean le);
    }

    private KdbObjects() {
    }

    /** A whole message ({@code type}: 0 async, 1 sync, 2 response) holding {@code body}. */
    public static ByteBuf message(final ByteBufAllocator alloc, final boolean le, final int type, final Obj body) {
        final ByteBuf b = alloc.directBuffer(256);
        b.writeByte(le ? 1 : 0).writeByte(type).writeByte(0).writeByte(0).writeInt(0);
        body.write(b, le);
        if (le) {
            b.setIntLE(4, b.readableBytes());
        } else {
            b.setInt(4, b.readableBytes());
        }
        return b;
    }

    /** {@code (name; args...)}: a call whose function name is a symbol. */
    public static Obj call(final String name, final Obj... args) {
        final Obj[] all = new Obj[args.length + 1];
        all[0] = sym(name);
        System.arraycopy(args, 0, all, 1, args.length);
        return list(all);
    }

    /** {@code ("name"; args...)}: a call whose function name is a string (javakdb, PyKX). */
    public static Obj callByString(final String name, final Obj... args) {
        final Obj[] all = new Obj[args.length + 1];
        all[0] = chars(name);
        System.arraycopy(args, 0, all, 1, args.length);
        return list(all);
    }

    public static Obj sym(final String s) {
        return (b, le) -> {
            b.writeByte(-KdbType.SYMBOL);
            b.writeCharSequence(s, StandardCharsets.ISO_8859_1);
            b.writeByte(0);
        };
    }

    public static Obj list(final Obj... items) {
        return (b, le) -> {
            header(b, le, KdbType.LIST, items.length);
            for (final Obj o : items) {
                o.write(b, le);
            }
        };
    }

    public static Obj syms(final String... s) {
        return (b, le) -> {
            header(b, le, KdbType.SYMBOL, s.length);
            for (final String x : s) {
                b.writeCharSequence(x, StandardCharsets.ISO_8859_1);
                b.writeByte(0);
            }
        };
    }

    public static Obj chars(final String s) {
        return (b, le) -> {
            final byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
            header(b, le, KdbType.CHAR, bytes.length);
            b.writeBytes(bytes);
        };
    }

    public static Obj floats(final double... v) {
        return (b, le) -> {
            header(b, le, KdbType.FLOAT, v.length);
            for (final double x : v) {
                i64(b, le, Double.doubleToRawLongBits(x));
            }
        };
    }

    public static Obj reals(final float... v) {
        return (b, le) -> {
            header(b, le, KdbType.REAL, v.length);
            for (final float x : v) {
                i32(b, le, Float.floatToRawIntBits(x));
            }
        };
    }

    public static Obj longs(final long... v) {
        return longVector(KdbType.LONG, v);
    }

    public static Obj timespans(final long... v) {
        return longVector(KdbType.TIMESPAN, v);
    }

    /** Timestamps, as kdb+ counts them: nanoseconds since 2000-01-01. */
    public static Obj timestamps(final long... v) {
        return longVector(KdbType.TIMESTAMP, v);
    }

    private static Obj longVector(final int type, final long... v) {
        return (b, le) -> {
            header(b, le, type, v.length);
            for (final long x : v) {
                i64(b, le, x);
            }
        };
    }

    public static Obj ints(final int... v) {
        return (b, le) -> {
            header(b, le, KdbType.INT, v.length);
            for (final int x : v) {
                i32(b, le, x);
            }
        };
    }

    public static Obj shorts(final short... v) {
        return (b, le) -> {
            header(b, le, KdbType.SHORT, v.length);
            for (final short x : v) {
                if (le) {
                    b.writeShortLE(x);
                } else {
                    b.writeShort(x);
                }
            }
        };
    }

    public static Obj bools(final boolean... v) {
        return (b, le) -> {
            header(b, le, KdbType.BOOLEAN, v.length);
            for (final boolean x : v) {
                b.writeByte(x ? 1 : 0);
            }
        };
    }

    public static Obj f(final double v) {
        return (b, le) -> {
            b.writeByte(-KdbType.FLOAT);
            i64(b, le, Double.doubleToRawLongBits(v));
        };
    }

    public static Obj j(final long v) {
        return atom64(-KdbType.LONG, v);
    }

    public static Obj n(final long v) {
        return atom64(-KdbType.TIMESPAN, v);
    }

    private static Obj atom64(final int type, final long v) {
        return (b, le) -> {
            b.writeByte(type);
            i64(b, le, v);
        };
    }

    public static Obj i(final int v) {
        return (b, le) -> {
            b.writeByte(-KdbType.INT);
            i32(b, le, v);
        };
    }

    public static Obj c(final char v) {
        return (b, le) -> b.writeByte(-KdbType.CHAR).writeByte(v);
    }

    /** {@code flip names!columns}. */
    public static Obj table(final String[] names, final Obj... columns) {
        return (b, le) -> {
            b.writeByte(KdbType.TABLE).writeByte(0).writeByte(KdbType.DICT);
            syms(names).write(b, le);
            list(columns).write(b, le);
        };
    }

    private static void header(final ByteBuf b, final boolean le, final int type, final int n) {
        b.writeByte(type).writeByte(0);
        i32(b, le, n);
    }

    private static void i32(final ByteBuf b, final boolean le, final int v) {
        if (le) {
            b.writeIntLE(v);
        } else {
            b.writeInt(v);
        }
    }

    private static void i64(final ByteBuf b, final boolean le, final long v) {
        if (le) {
            b.writeLongLE(v);
        } else {
            b.writeLong(v);
        }
    }

    // ------------------------------------------------------------------ reading

    /** The message type (0 async, 1 sync, 2 response) and object of one whole message. */
    public record Message(int type, Object value) {
    }

    /** Reads one whole message (not compressed) from {@code msg}'s reader index; does not release it. */
    public static Message read(final ByteBuf msg) {
        final int at = msg.readerIndex();
        final boolean le = msg.getByte(at) == 1;
        final int length = le ? msg.getIntLE(at + 4) : msg.getInt(at + 4);
        if (length != msg.readableBytes()) {
            throw new AssertionError("message length " + length + " but " + msg.readableBytes() + " bytes");
        }
        final Reader r = new Reader(msg, at + KdbDescriptor.HEADER_LENGTH, le);
        final Object value = r.object();
        if (r.pos != at + length) {
            throw new AssertionError("object ends at " + (r.pos - at) + " of " + length);
        }
        return new Message(msg.getByte(at + 1), value);
    }

    private static final class Reader {
        private final ByteBuf b;
        private final boolean le;
        private int pos;

        Reader(final ByteBuf b, final int pos, final boolean le) {
            this.b = b;
            this.pos = pos;
            this.le = le;
        }

        Object object() {
            final int t = b.getByte(pos++);
            if (t == KdbType.ERROR) {
                return new Err(string());
            }
            if (t < 0) {
                return atom(-t);
            }
            if (t == KdbType.UNARY_PRIMITIVE) {
                pos++;
                return GENERIC_NULL;
            }
            if (t == KdbType.DICT) {
                return dict(object(), object());
            }
            if (t == KdbType.TABLE) {
                pos++;
                final Object d = object();
                if (!(d instanceof Map<?, ?>)) {
                    throw new AssertionError("table is not a flip of a dictionary");
                }
                return d;
            }
            pos++;
            final int n = i32();
            switch (t) {
                case KdbType.LIST -> {
                    final List<Object> out = new ArrayList<>();
                    for (int k = 0; k < n; k++) {
                        out.add(object());
                    }
                    return out;
                }
                case KdbType.SYMBOL -> {
                    final String[] out = new String[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = string();
                    }
                    return out;
                }
                case KdbType.CHAR -> {
                    final String s = b.toString(pos, n, StandardCharsets.ISO_8859_1);
                    pos += n;
                    return s;
                }
                case KdbType.FLOAT -> {
                    final double[] out = new double[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = Double.longBitsToDouble(i64());
                    }
                    return out;
                }
                case KdbType.REAL -> {
                    final float[] out = new float[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = Float.intBitsToFloat(i32());
                    }
                    return out;
                }
                case KdbType.LONG -> {
                    final long[] out = new long[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = i64();
                    }
                    return out;
                }
                case KdbType.TIMESTAMP, KdbType.TIMESPAN -> {
                    final long[] out = new long[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = i64();
                    }
                    return new Temporal(t, out);
                }
                case KdbType.INT -> {
                    final int[] out = new int[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = i32();
                    }
                    return out;
                }
                case KdbType.SHORT -> {
                    final short[] out = new short[n];
                    for (int k = 0; k < n; k++) {
                        out[k] = le ? b.getShortLE(pos) : b.getShort(pos);
                        pos += 2;
                    }
                    return out;
                }
                case KdbType.BOOLEAN, KdbType.BYTE -> {
                    final byte[] out = new byte[n];
                    b.getBytes(pos, out);
                    pos += n;
                    return out;
                }
                default -> throw new AssertionError("type not read by tests: " + t);
            }
        }

        private Object atom(final int t) {
            return switch (t) {
                case KdbType.SYMBOL -> new Sym(string());
                case KdbType.LONG -> i64();
                case KdbType.INT -> i32();
                case KdbType.FLOAT -> Double.longBitsToDouble(i64());
                case KdbType.CHAR -> (char) b.getByte(pos++);
                case KdbType.DATE -> new Temporal(KdbType.DATE, new long[] {i32()});
                case KdbType.TIMESPAN, KdbType.TIMESTAMP -> new Temporal(t, new long[] {i64()});
                default -> throw new AssertionError("atom type not read by tests: " + t);
            };
        }

        private static Map<String, Object> dict(final Object keys, final Object values) {
            final Map<String, Object> out = new LinkedHashMap<>();
            final String[] k = (String[]) keys;
            final List<?> v = (List<?>) values;
            for (int i = 0; i < k.length; i++) {
                out.put(k[i], v.get(i));
            }
            return out;
        }

        private String string() {
            final int nul = b.indexOf(pos, b.writerIndex(), (byte) 0);
            final String s = b.toString(pos, nul - pos, StandardCharsets.ISO_8859_1);
            pos = nul + 1;
            return s;
        }

        private int i32() {
            final int v = le ? b.getIntLE(pos) : b.getInt(pos);
            pos += 4;
            return v;
        }

        private long i64() {
            final long v = le ? b.getLongLE(pos) : b.getLong(pos);
            pos += 8;
            return v;
        }
    }

    /** Arrays in a read object compared by content (for assertions on lists holding arrays). */
    public static String show(final Object o) {
        if (o instanceof List<?> l) {
            final List<String> parts = new ArrayList<>();
            l.forEach(x -> parts.add(show(x)));
            return "(" + String.join(";", parts) + ")";
        }
        if (o instanceof Map<?, ?> m) {
            final List<String> parts = new ArrayList<>();
            m.forEach((k, v) -> parts.add(k + ":" + show(v)));
            return "[" + String.join(" ", parts) + "]";
        }
        if (o instanceof Temporal t) {
            return KdbType.name(t.type()) + Arrays.toString(t.values());
        }
        if (o instanceof Object[] a) {
            return Arrays.deepToString(a);
        }
        if (o instanceof long[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof int[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof double[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof float[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof short[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof byte[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof Sym s) {
            return "`" + s.name();
        }
        return String.valueOf(o);
    }
}
