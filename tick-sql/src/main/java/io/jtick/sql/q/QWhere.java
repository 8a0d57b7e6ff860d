package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code where} part of a q select: each condition ({@code column op literal}) to one object of
 * the document's {@code where} list, {@code date} ones to {@code dates}, {@code like} to {@code in}
 * over the syms that match. Literals are checked against the column's type ({@code 'type}).
 */
final class QWhere {
    private static final Map<String, String> COMPARISONS = Map.of("=", "=", "<", "<", ">", ">", "<>", "!=", "<=", "<=", ">=", ">=");
    private static final long NS_PER_DAY = 86_400_000_000_000L;

    private final TableSchema left;
    private final QCompiler.Context cx;
    private final List<Object> where = new ArrayList<>();
    private Object dates;
    private long lo = Long.MIN_VALUE;
    private long hi = Long.MAX_VALUE;

    QWhere(final TableSchema left, final QCompiler.Context cx) {
        this.left = left;
        this.cx = cx;
    }

    private ColumnDef column(final String name) {
        final int i = left.indexOf(name);
        return i < 0 ? null : left.column(i);
    }

    /** Puts {@code where} and {@code dates} into the document. */
    void finish(final Map<String, Object> doc) {
        if (dates != null || lo != Long.MIN_VALUE || hi != Long.MAX_VALUE) {
            if (dates != null && (lo != Long.MIN_VALUE || hi != Long.MAX_VALUE)) {
                throw QException.nyi("date = or in beside a date range");
            }
            if (dates == null) {
                final Map<String, Object> range = new LinkedHashMap<>();
                if (lo != Long.MIN_VALUE) {
                    range.put("from", LocalDate.ofEpochDay(lo).toString());
                }
                if (hi != Long.MAX_VALUE) {
                    range.put("to", LocalDate.ofEpochDay(hi).toString());
                }
                dates = range;
            }
            doc.put("dates", dates);
        }
        if (!where.isEmpty()) {
            doc.put("where", where);
        }
    }

    void add(final List<QNode> conds) {
        for (final QNode c : conds) {
            if (!(c instanceof QNode.Dyad d) || !(d.left() instanceof QNode.Name col)) {
                throw QException.nyi("where " + c + " (conditions are column op literal)");
            }
            if (!(d.right() instanceof QNode.Lit lit)) {
                throw QException.nyi("where " + c + " (the right side is a literal)");
            }
            final QValue v = lit.value();
            final String name = col.name();
            if (name.equals("date") && column("date") == null) {
                date(d.op(), v, c);
                continue;
            }
            final ColumnDef def = column(name);
            if (def == null) {
                throw new QException(name);
            }
            final String cmp = COMPARISONS.get(d.op());
            if (cmp != null) {
                if (!v.atom()) {
                    throw QException.length("where " + c + " compares a column with " + v.count() + " values: use in");
                }
                where.add(Map.of(name, Map.of(cmp, value(def, v, c))));
            } else if (d.op().equals("within")) {
                if (v.count() != 2 || v.atom()) {
                    throw QException.length("within takes two values [where=" + c + "]");
                }
                where.add(Map.of(name, Map.of("within", List.of(value(def, v.item(0), c), value(def, v.item(1), c)))));
            } else if (d.op().equals("in")) {
                final List<Object> in = new ArrayList<>();
                for (int i = 0; i < v.count(); i++) {
                    in.add(value(def, v.item(i), c));
                }
                where.add(Map.of(name, Map.of("in", in)));
            } else if (d.op().equals("like")) {
                if (def.type() != ColumnType.SYMBOL || v.type() != KdbType.CHAR && v.type() != -KdbType.CHAR) {
                    throw QException.nyi("like " + (def.type() != ColumnType.SYMBOL ? "on a " + def.type().name().toLowerCase(Locale.ROOT)
                        + " column" : "with a " + KdbType.name(v.type())) + " (like takes a symbol column and a pattern string)");
                }
                final String pattern = v.type() == -KdbType.CHAR ? String.valueOf((char) v.longValue()) : v.text();
                final Pattern p = glob(pattern);
                final List<Object> in = new ArrayList<>();
                for (final String s : cx.symsOf().apply(left.name(), name)) {
                    if (p.matcher(s).matches()) {
                        in.add(s);
                    }
                }
                where.add(Map.of(name, Map.of("in", in)));
            } else {
                throw QException.nyi("where with " + d.op() + " [where=" + c + "]");
            }
        }
    }

    /** q's like pattern: {@code *} any, {@code ?} one, {@code [abc]} / {@code [^abc]} a set. */
    static Pattern glob(final String pattern) {
        final StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            final char ch = pattern.charAt(i);
            if (ch == '*') {
                re.append(".*");
            } else if (ch == '?') {
                re.append('.');
            } else if (ch == '[') {
                final int close = pattern.indexOf(']', i + 1);
                if (close < 0) {
                    re.append("\\[");
                } else {
                    re.append('[').append(pattern, i + 1, close).append(']');
                    i = close;
                }
            } else {
                re.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    private void date(final String op, final QValue v, final QNode c) {
        for (int i = 0; i < v.count(); i++) {
            if (v.item(i).type() != -KdbType.DATE) {
                throw QException.type("date compared with a " + KdbType.name(v.item(i).type()) + " [where=" + c + "]");
            }
        }
        switch (op) {
            case "=" -> dates = LocalDate.ofEpochDay(v.longValue()).toString();
            case "in" -> {
                final List<Object> l = new ArrayList<>();
                for (int i = 0; i < v.count(); i++) {
                    l.add(LocalDate.ofEpochDay(v.item(i).longValue()).toString());
                }
                dates = l;
            }
            case "within" -> {
                if (v.count() != 2 || v.atom()) {
                    throw QException.length("within takes two dates [where=" + c + "]");
                }
                lo = Math.max(lo, v.item(0).longValue());
                hi = Math.min(hi, v.item(1).longValue());
            }
            case ">=" -> lo = Math.max(lo, v.longValue());
            case ">" -> lo = Math.max(lo, v.longValue() + 1);
            case "<=" -> hi = Math.min(hi, v.longValue());
            case "<" -> hi = Math.min(hi, v.longValue() - 1);
            default -> throw QException.nyi("date " + op + " [where=" + c + "]");
        }
    }

    /** A literal as the document writes a value of {@code column}'s type. */
    private static Object value(final ColumnDef column, final QValue v, final QNode c) {
        final int t = v.type();
        final Object d = v.data();
        switch (column.type()) {
            case SYMBOL -> {
                if (t != -KdbType.SYMBOL) {
                    throw QException.type(column.name() + " is a symbol column, compared with a " + KdbType.name(t) + " [where=" + c + "]");
                }
                return d;
            }
            case CHAR -> {
                if (t != -KdbType.CHAR) {
                    throw QException.type(column.name() + " is a char column, compared with a " + KdbType.name(t) + " [where=" + c + "]");
                }
                return String.valueOf((char) v.longValue());
            }
            case BOOL -> {
                if (t != -KdbType.BOOLEAN) {
                    throw QException.type(column.name() + " is a boolean column [where=" + c + "]");
                }
                return v.longValue() != 0;
            }
            case TIMESTAMP -> {
                return switch (-t) {
                    case KdbType.TIMESTAMP -> d;
                    case KdbType.DATE -> LocalDate.ofEpochDay(v.longValue()).toString();
                    case KdbType.TIMESPAN, KdbType.TIME, KdbType.MINUTE, KdbType.SECOND -> clock(nanosOfDay(v));
                    default -> throw QException.type(column.name() + " is a timestamp column, compared with a " + KdbType.name(t)
                        + " [where=" + c + "]");
                };
            }
            case FLOAT64, FLOAT32 -> {
                if (t != -KdbType.FLOAT && t != -KdbType.REAL && t != -KdbType.LONG && t != -KdbType.INT && t != -KdbType.SHORT) {
                    throw QException.type(column.name() + " is a float column, compared with a " + KdbType.name(t) + " [where=" + c + "]");
                }
                return d instanceof Long l ? (double) l : d;
            }
            default -> {
                if (t != -KdbType.LONG && t != -KdbType.INT && t != -KdbType.SHORT && t != -KdbType.BYTE) {
                    throw QException.type(column.name() + " is an integer column, compared with a " + KdbType.name(t)
                        + " [where=" + c + "]");
                }
                return d;
            }
        }
    }

    static long nanosOfDay(final QValue v) {
        return switch (-v.type()) {
            case KdbType.TIMESPAN -> v.longValue();
            case KdbType.TIME -> v.longValue() * 1_000_000L;
            case KdbType.MINUTE -> v.longValue() * 60_000_000_000L;
            case KdbType.SECOND -> v.longValue() * 1_000_000_000L;
            default -> throw QException.type("not a time [value=" + v + "]");
        };
    }

    /** A time of day as the engine reads it, {@code HH:MM:SS.nnnnnnnnn} (each partition's own date). */
    private static String clock(final long nanos) {
        if (nanos < 0 || nanos >= NS_PER_DAY) {
            throw QException.nyi("a timespan outside one day [nanos=" + nanos + "]");
        }
        final long s = nanos / 1_000_000_000L;
        return String.format(Locale.ROOT, "%02d:%02d:%02d.%09d", s / 3600, s / 60 % 60, s % 60, nanos % 1_000_000_000L);
    }
}
