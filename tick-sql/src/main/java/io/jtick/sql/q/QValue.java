package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;

import java.time.LocalDate;
import java.util.List;

/**
 * A q value as the parser reads it: {@code type} is kdb+'s code (negative: an atom, positive: a
 * vector, 0: a general list). Atoms hold a {@code Long} (boolean 0/1, byte, short, int, long,
 * char code, timestamp as epoch ns, date as epoch day, time in ms, minute, second, timespan in ns),
 * a {@code Double} (real, float) or a {@code String} (symbol); vectors a {@code long[]},
 * {@code double[]}, {@code String[]} (symbols) or a {@code String} (chars); a general list a
 * {@code List<QValue>}.
 */
public record QValue(int type, Object data) {
    public static final long NULL_LONG = Long.MIN_VALUE;

    public static QValue symbol(final String s) {
        return new QValue(-KdbType.SYMBOL, s);
    }

    public static QValue chars(final String s) {
        return new QValue(KdbType.CHAR, s);
    }

    public boolean atom() {
        return type < 0;
    }

    public boolean isSymbol() {
        return type == -KdbType.SYMBOL || type == KdbType.SYMBOL;
    }

    /** Items of a vector or list (1 for an atom). */
    public int count() {
        if (type < 0) {
            return 1;
        }
        if (data instanceof long[] l) {
            return l.length;
        }
        if (data instanceof double[] d) {
            return d.length;
        }
        if (data instanceof String[] s) {
            return s.length;
        }
        if (data instanceof String s) {
            return s.length();
        }
        return data instanceof List<?> l ? l.size() : 1;
    }

    /** Item {@code i} of a vector as an atom (the atom itself for an atom). */
    public QValue item(final int i) {
        if (type < 0) {
            return this;
        }
        if (data instanceof long[] l) {
            return new QValue(-type, l[i]);
        }
        if (data instanceof double[] d) {
            return new QValue(-type, d[i]);
        }
        if (data instanceof String[] s) {
            return new QValue(-type, s[i]);
        }
        if (data instanceof String s) {
            return new QValue(-KdbType.CHAR, (long) s.charAt(i));
        }
        if (data instanceof List<?> l) {
            return (QValue) l.get(i);
        }
        throw new IllegalStateException("vector without data [type=" + type + "]");
    }

    public long longValue() {
        return (Long) data;
    }

    public String text() {
        return data instanceof String s ? s : String.valueOf(data);
    }

    /** q's way of writing this value (errors and logs). */
    @Override
    public String toString() {
        if (type == -KdbType.SYMBOL) {
            return "`" + data;
        }
        if (type == KdbType.SYMBOL) {
            final StringBuilder sb = new StringBuilder();
            for (final String s : (String[]) data) {
                sb.append('`').append(s);
            }
            return sb.toString();
        }
        if (type == KdbType.CHAR) {
            return "\"" + data + "\"";
        }
        if (type == -KdbType.CHAR) {
            return "\"" + (char) longValue() + "\"";
        }
        if (type == -KdbType.DATE) {
            return LocalDate.ofEpochDay(longValue()).toString().replace('-', '.');
        }
        if (type < 0) {
            return String.valueOf(data);
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count(); i++) {
            sb.append(i == 0 ? "" : " ").append(item(i));
        }
        return type == 0 ? "(" + sb.toString().replace(" ", ";") + ")" : sb.toString();
    }
}
