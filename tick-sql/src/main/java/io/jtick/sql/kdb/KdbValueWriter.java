package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.sql.q.QValue;
import io.jtick.sql.q.QValues;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes a {@link QValue} as a kdb+ object, little-endian as {@link KdbWriter} writes: timestamps
 * from epoch ns to kdb+'s 2000 epoch, dates from epoch days, nulls as q's ({@code 0Np},
 * {@code 0Nd}, {@code 0Ni}...), tables and dictionaries (a keyed table is a dictionary of two tables).
 */
final class KdbValueWriter {
    private KdbValueWriter() {
    }

    /** Bytes {@link #write} will write for {@code v} (a hint for the buffer). */
    static int size(final QValue v) {
        if (v.type() == KdbType.TABLE || v.type() == KdbType.DICT) {
            final QValue[] p = QValues.parts(v);
            return 3 + size(p[0]) + size(p[1]);
        }
        if (v.type() == 0) {
            int n = 6;
            for (final Object o : (List<?>) v.data()) {
                n += size((QValue) o);
            }
            return n;
        }
        if (v.type() == KdbType.SYMBOL) {
            int n = 6;
            for (final String s : (String[]) v.data()) {
                n += s.length() + 1;
            }
            return n;
        }
        if (v.type() == -KdbType.SYMBOL) {
            return 2 + v.text().length();
        }
        return 6 + v.count() * Math.max(1, KdbType.width(v.type()));
    }

    static void write(final ByteBuf b, final QValue v) {
        final int t = v.type();
        if (t == KdbType.TABLE) {
            b.writeByte(KdbType.TABLE).writeByte(0);
            final QValue[] p = QValues.parts(v);
            b.writeByte(KdbType.DICT);
            write(b, p[0]);
            write(b, p[1]);
            return;
        }
        if (t == KdbType.DICT) {
            final QValue[] p = QValues.parts(v);
            b.writeByte(KdbType.DICT);
            write(b, p[0]);
            write(b, p[1]);
            return;
        }
        if (t == 0) {
            final List<?> items = (List<?>) v.data();
            KdbWriter.list(b, items.size());
            for (final Object o : items) {
                write(b, (QValue) o);
            }
            return;
        }
        if (t < 0) {
            b.writeByte(t);
            if (t == -KdbType.SYMBOL) {
                b.writeCharSequence(v.text(), StandardCharsets.ISO_8859_1);
                b.writeByte(0);
            } else if (v.data() instanceof Double d) {
                value(b, -t, d);
            } else {
                value(b, -t, v.longValue());
            }
            return;
        }
        final int n = v.count();
        KdbWriter.vector(b, t, n);
        final Object data = v.data();
        if (data instanceof String[] syms) {
            for (final String s : syms) {
                b.writeCharSequence(s, StandardCharsets.ISO_8859_1);
                b.writeByte(0);
            }
        } else if (data instanceof String chars) {
            b.writeCharSequence(chars, StandardCharsets.ISO_8859_1);
        } else if (data instanceof double[] d) {
            for (final double x : d) {
                value(b, t, x);
            }
        } else {
            for (final long x : (long[]) data) {
                value(b, t, x);
            }
        }
    }

    private static void value(final ByteBuf b, final int type, final double v) {
        if (type == KdbType.REAL) {
            b.writeFloatLE((float) v);
        } else {
            b.writeDoubleLE(v);
        }
    }

    private static void value(final ByteBuf b, final int type, final long v) {
        final boolean isNull = v == QValue.NULL_LONG;
        switch (type) {
            case KdbType.BOOLEAN, KdbType.BYTE, KdbType.CHAR -> b.writeByte((int) v);
            case KdbType.SHORT -> b.writeShortLE(isNull ? Short.MIN_VALUE : (int) v);
            case KdbType.INT, KdbType.MONTH, KdbType.MINUTE, KdbType.SECOND, KdbType.TIME ->
                b.writeIntLE(isNull ? Integer.MIN_VALUE : (int) v);
            case KdbType.DATE -> b.writeIntLE(isNull ? Integer.MIN_VALUE : (int) (v - KdbDescriptor.DAYS_1970_2000));
            case KdbType.TIMESTAMP -> b.writeLongLE(isNull ? v : v - KdbDescriptor.NANOS_1970_2000);
            case KdbType.FLOAT -> b.writeDoubleLE(v);
            case KdbType.REAL -> b.writeFloatLE(v);
            default -> b.writeLongLE(v);
        }
    }
}
