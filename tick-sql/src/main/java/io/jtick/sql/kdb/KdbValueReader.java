package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbReader;
import io.jtick.core.kdb.KdbType;
import io.jtick.sql.q.QException;
import io.jtick.sql.q.QValue;
import io.jtick.sql.q.QValues;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a kdb+ object ({@link KdbReader}, bounds-checked, the message's byte order) into a
 * {@link QValue}: what a functional select's parse tree arrives as, and what tests read answers
 * with. Timestamps become epoch ns, dates epoch days; nulls stay q's. Functions other than the
 * generic null {@code ::} and the operators of a parse tree are {@code 'nyi}.
 */
public final class KdbValueReader {
    private final KdbReader reader;

    public KdbValueReader(final KdbReader reader) {
        this.reader = reader;
    }

    /** The object at {@code pos}. */
    public QValue read(final int pos) {
        return read(pos, new int[1]);
    }

    private QValue read(final int pos, final int[] end) {
        final int t = reader.type(pos);
        if (t == 100 || t > 103 && t <= 112) {
            throw QException.nyi("a function value (type " + t + ") in a message: send q text");
        }
        if (t == KdbType.ERROR) {
            final String text = reader.buffer().toString(pos + 1, reader.symbolEnd(pos + 1) - pos - 1, StandardCharsets.ISO_8859_1);
            end[0] = reader.symbolEnd(pos + 1) + 1;
            return new QValue(KdbType.ERROR, text);
        }
        if (t == KdbType.TABLE) {
            final QValue d = read(pos + 2, end);
            final QValue[] p = QValues.parts(d);
            return new QValue(KdbType.TABLE, p);
        }
        if (t == KdbType.DICT) {
            final QValue k = read(pos + 1, end);
            final QValue v = read(end[0], end);
            return QValues.dict(k, v);
        }
        if (t >= KdbType.UNARY_PRIMITIVE && t <= 103) {
            end[0] = pos + 2;
            final int code = reader.i8(pos + 1);
            return new QValue(t, (long) code);
        }
        if (t < 0) {
            if (t == -KdbType.SYMBOL) {
                final int e = reader.symbolEnd(pos + 1);
                end[0] = e + 1;
                return QValue.symbol(reader.buffer().toString(pos + 1, e - pos - 1, StandardCharsets.ISO_8859_1));
            }
            end[0] = reader.skip(pos);
            return atom(-t, pos + 1);
        }
        final int n = reader.count(pos);
        int p = KdbReader.values(pos);
        if (t == KdbType.LIST) {
            final List<QValue> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                items.add(read(p, end));
                p = end[0];
            }
            end[0] = p;
            return new QValue(0, items);
        }
        if (t == KdbType.SYMBOL) {
            final String[] s = new String[n];
            for (int i = 0; i < n; i++) {
                final int e = reader.symbolEnd(p);
                s[i] = reader.buffer().toString(p, e - p, StandardCharsets.ISO_8859_1);
                p = e + 1;
            }
            end[0] = p;
            return new QValue(KdbType.SYMBOL, s);
        }
        if (t == KdbType.CHAR) {
            reader.need(p, n);
            end[0] = p + n;
            return QValue.chars(reader.buffer().toString(p, n, StandardCharsets.ISO_8859_1));
        }
        if (t == KdbType.GUID) {
            throw QException.nyi("guid values");
        }
        final int w = KdbType.width(t);
        if (w == 0) {
            throw new KdbReader.Malformed("unknown vector type [type=" + t + "]");
        }
        reader.need(p, (long) n * w);
        end[0] = p + n * w;
        if (t == KdbType.FLOAT || t == KdbType.REAL) {
            final double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = (Double) atom(t, p + i * w).data();
            }
            return new QValue(t, d);
        }
        final long[] l = new long[n];
        for (int i = 0; i < n; i++) {
            l[i] = atom(t, p + i * w).longValue();
        }
        return new QValue(t, l);
    }

    /** One value of type {@code t} (positive) at {@code p}, as a {@link QValue} atom. */
    private QValue atom(final int t, final int p) {
        return switch (t) {
            case KdbType.BOOLEAN, KdbType.BYTE, KdbType.CHAR -> new QValue(-t, (long) (t == KdbType.BYTE || t == KdbType.CHAR
                ? reader.i8(p) & 0xff : reader.i8(p)));
            case KdbType.SHORT -> new QValue(-t, nullable(reader.i16(p), Short.MIN_VALUE));
            case KdbType.INT, KdbType.MONTH, KdbType.MINUTE, KdbType.SECOND, KdbType.TIME -> new QValue(-t, nullable(reader.i32(p),
                Integer.MIN_VALUE));
            case KdbType.DATE -> {
                final int d = reader.i32(p);
                yield new QValue(-t, d == Integer.MIN_VALUE ? QValue.NULL_LONG : d + (long) KdbDescriptor.DAYS_1970_2000);
            }
            case KdbType.TIMESTAMP -> {
                final long v = reader.i64(p);
                yield new QValue(-t, v == QValue.NULL_LONG ? v : v + KdbDescriptor.NANOS_1970_2000);
            }
            case KdbType.REAL -> new QValue(-t, (double) Float.intBitsToFloat(reader.i32(p)));
            case KdbType.FLOAT -> new QValue(-t, Double.longBitsToDouble(reader.i64(p)));
            case KdbType.LONG, KdbType.TIMESPAN -> new QValue(-t, reader.i64(p));
            case KdbType.DATETIME -> throw QException.nyi("datetime values (send timestamps)");
            default -> throw QException.nyi("values of type " + KdbType.name(t));
        };
    }

    private static long nullable(final long v, final long nullValue) {
        return v == nullValue ? QValue.NULL_LONG : v;
    }
}
