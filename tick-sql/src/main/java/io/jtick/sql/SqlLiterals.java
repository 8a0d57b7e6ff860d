package io.jtick.sql;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.QueryException;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.BooleanValue;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Constant expressions of a statement: numbers, strings, {@code TIMESTAMP '...'}, casts of strings,
 * {@code now()} and {@code current_timestamp} (the time of the statement), intervals
 * ({@code INTERVAL '1 hour'}, {@code '5 minutes'::interval}), a timestamp plus or minus an interval,
 * and parameters. Times come out as epoch nanoseconds ({@link Long}) or the text the engine's
 * literal rules read.
 */
final class SqlLiterals {
    /** Marker for a parameter whose value is not known yet (a statement described before binding). */
    static final Object UNBOUND = new Object();
    private static final Pattern INTERVAL = Pattern.compile(
        "(?i)\\s*(\\d+(?:\\.\\d+)?)\\s*(ns|nanoseconds?|us|microseconds?|ms|milliseconds?|s|sec|secs|seconds?|m|min|mins|minutes?"
            + "|h|hours?|d|days?|w|weeks?)\\s*");

    private final long nowNanos;
    private final SqlParams params;
    private int positional;
    private boolean readNow;

    SqlLiterals(final long nowNanos, final SqlParams params) {
        this.nowNanos = nowNanos;
        this.params = params;
    }

    /** True when a value read the statement's time ({@code now()}, {@code current_date}...): its document changes with the clock. */
    boolean readNow() {
        return readNow;
    }

    /** A timestamp with an interval on it: epoch ns; the type of a literal. */
    record Interval(long nanos) {
    }

    /** True when the expression is a constant this class evaluates. */
    static boolean isConstant(final Expression e) {
        return e instanceof LongValue || e instanceof DoubleValue || e instanceof StringValue || e instanceof NullValue
            || e instanceof DateTimeLiteralExpression || e instanceof TimeKeyExpression || e instanceof IntervalExpression
            || e instanceof JdbcParameter || e instanceof JdbcNamedParameter || e instanceof BooleanValue
            || e instanceof SignedExpression s && isConstant(s.getExpression())
            || e instanceof CastExpression c && isConstant(c.getLeftExpression())
            || e instanceof Parenthesis p && isConstant(p.getExpression())
            || e instanceof Function f && isNow(f)
            || (e instanceof Addition || e instanceof Subtraction)
                && isConstant(((net.sf.jsqlparser.expression.BinaryExpression) e).getLeftExpression())
                && isConstant(((net.sf.jsqlparser.expression.BinaryExpression) e).getRightExpression());
    }

    private static boolean isNow(final Function f) {
        final String n = f.getName().toLowerCase(Locale.ROOT);
        return (n.equals("now") || n.equals("current_timestamp") || n.equals("systimestamp") || n.equals("now_utc"))
            && (f.getParameters() == null || f.getParameters().isEmpty());
    }

    /** The value: Long, Double, String, Boolean, {@link Interval}, null, or {@link #UNBOUND}. */
    Object eval(final Expression e) {
        if (e instanceof LongValue l) {
            return l.getValue();
        }
        if (e instanceof DoubleValue d) {
            return d.getValue();
        }
        if (e instanceof StringValue s) {
            return s.getValue().replace("''", "'");
        }
        if (e instanceof BooleanValue b) {
            return b.getValue();
        }
        if (e instanceof NullValue) {
            return null;
        }
        if (e instanceof Parenthesis p) {
            return eval(p.getExpression());
        }
        if (e instanceof SignedExpression s) {
            final Object v = eval(s.getExpression());
            if (s.getSign() != '-' || v == UNBOUND) {
                return v;
            }
            if (v instanceof Long l) {
                return -l;
            }
            if (v instanceof Double d) {
                return -d;
            }
            if (v instanceof Interval i) {
                return new Interval(-i.nanos());
            }
            throw new SqlException(SqlException.DATATYPE_MISMATCH, "cannot negate [value=" + v + "]");
        }
        if (e instanceof JdbcParameter p) {
            final int index = p.getIndex() != null ? p.getIndex() : ++positional;
            return params.describing() ? UNBOUND : params.get(index);
        }
        if (e instanceof JdbcNamedParameter p) {
            if (params.describing()) {
                return UNBOUND;
            }
            try {
                return params.get(Integer.parseInt(p.getName()));
            } catch (final NumberFormatException x) {
                throw SqlException.notSupported("named parameter :" + p.getName());
            }
        }
        if (e instanceof TimeKeyExpression t) {
            final String k = t.getStringValue().toLowerCase(Locale.ROOT).replace("()", "");
            if (k.equals("current_timestamp") || k.equals("now") || k.equals("localtimestamp")) {
                readNow = true;
                return nowNanos;
            }
            if (k.equals("current_date")) {
                readNow = true;
                return java.time.LocalDate.ofEpochDay(Math.floorDiv(nowNanos, 86_400_000_000_000L)).toString();
            }
            throw SqlException.notSupported(t.getStringValue());
        }
        if (e instanceof Function f && isNow(f)) {
            readNow = true;
            return nowNanos;
        }
        if (e instanceof DateTimeLiteralExpression d) {
            final String v = d.getValue();
            return v.length() >= 2 && v.startsWith("'") ? v.substring(1, v.length() - 1) : v;
        }
        if (e instanceof IntervalExpression i) {
            final Object inner = i.getExpression() != null ? eval(i.getExpression()) : i.getParameter();
            String text = String.valueOf(inner).replace("'", "");
            if (i.getIntervalType() != null) {
                text = text + " " + i.getIntervalType();
            }
            return new Interval(interval(text));
        }
        if (e instanceof CastExpression c) {
            final Object v = eval(c.getLeftExpression());
            final String type = c.getColDataType().getDataType().toLowerCase(Locale.ROOT);
            if (v == UNBOUND || v == null) {
                return v;
            }
            if (type.equals("interval")) {
                return new Interval(interval(String.valueOf(v)));
            }
            if (type.startsWith("timestamp") || type.equals("date") || type.startsWith("varchar") || type.equals("text")
                || type.equals("symbol")) {
                return v instanceof String ? v : String.valueOf(v);
            }
            if (type.startsWith("int") || type.equals("bigint") || type.equals("smallint") || type.equals("long")) {
                return v instanceof Number n ? n.longValue() : parseLong(String.valueOf(v));
            }
            if (type.startsWith("float") || type.equals("double") || type.equals("real") || type.startsWith("numeric")) {
                return v instanceof Number n ? n.doubleValue() : parseDouble(String.valueOf(v));
            }
            throw SqlException.notSupported("cast to " + type);
        }
        if (e instanceof Addition || e instanceof Subtraction) {
            final net.sf.jsqlparser.expression.BinaryExpression b = (net.sf.jsqlparser.expression.BinaryExpression) e;
            final Object l = eval(b.getLeftExpression());
            final Object r = eval(b.getRightExpression());
            if (l == UNBOUND || r == UNBOUND) {
                return UNBOUND;
            }
            final boolean minus = e instanceof Subtraction;
            if (r instanceof Interval i && !(l instanceof Interval)) {
                final long t = timeNanos(l);
                return minus ? t - i.nanos() : t + i.nanos();
            }
            if (l instanceof Long a && r instanceof Long c) {
                return minus ? a - c : a + c;
            }
            if (l instanceof Number a && r instanceof Number c) {
                return minus ? a.doubleValue() - c.doubleValue() : a.doubleValue() + c.doubleValue();
            }
            throw SqlException.notSupported("arithmetic on constants [expression=" + e + "]");
        }
        throw SqlException.notSupported("expression [expression=" + e + "]: expected a constant");
    }

    /** A time value (epoch ns, or text the engine reads) as epoch ns. */
    static long timeNanos(final Object v) {
        if (v instanceof Long l) {
            return l;
        }
        try {
            return Literals.time(normalizeTime(String.valueOf(v)), "time").nanos();
        } catch (final QueryException e) {
            throw new SqlException(SqlException.INVALID_TEXT, e.getMessage());
        }
    }

    /**
     * PostgreSQL's way of writing a timestamp ({@code 2026-11-21 09:30:00+00}, what pgJDBC sends)
     * in the ISO-8601 form the engine reads ({@code 2026-11-21T09:30:00+00:00}).
     */
    static String normalizeTime(final String s) {
        String t = s.trim();
        if (t.matches("\\d{4}-\\d{2}-\\d{2} \\d.*")) {
            t = t.substring(0, 10) + "T" + t.substring(11);
        }
        final Matcher m = Pattern.compile("(.*T.*[+-])(\\d{2})$").matcher(t);
        if (m.matches()) {
            t = m.group(1) + m.group(2) + ":00";
        }
        if (t.endsWith(" UTC") || t.endsWith(" utc")) {
            t = t.substring(0, t.length() - 4) + "Z";
        }
        return t;
    }

    /** {@code '1 minute'}, {@code '5m'}, {@code '100 milliseconds'}, {@code 00:01:00} in nanoseconds. */
    static long interval(final String text) {
        final Matcher m = INTERVAL.matcher(text);
        if (!m.matches()) {
            if (text.trim().matches("\\d{1,2}:\\d{2}:\\d{2}")) {
                return Literals.duration(text.trim(), "interval");
            }
            throw new SqlException(SqlException.INVALID_TEXT, "bad interval [interval=" + text
                + "]: expected a number and a unit, like '1 minute', '5m', '250 milliseconds'");
        }
        final double n = Double.parseDouble(m.group(1));
        final String u = m.group(2).toLowerCase(Locale.ROOT);
        final double unit;
        if (u.startsWith("n")) {
            unit = 1;
        } else if (u.equals("us") || u.startsWith("micro")) {
            unit = 1e3;
        } else if (u.equals("ms") || u.startsWith("milli")) {
            unit = 1e6;
        } else if (u.startsWith("s")) {
            unit = 1e9;
        } else if (u.equals("m") || u.startsWith("min")) {
            unit = 60e9;
        } else if (u.startsWith("h")) {
            unit = 3600e9;
        } else if (u.startsWith("d")) {
            unit = 86_400e9;
        } else {
            unit = 7 * 86_400e9;
        }
        final double ns = n * unit;
        if (ns < 1 || ns > 9.2e18 || ns != Math.rint(ns)) {
            throw new SqlException(SqlException.INVALID_TEXT, "bad interval [interval=" + text + "]");
        }
        return (long) ns;
    }

    static long parseLong(final String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (final NumberFormatException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type bigint: \"" + s + "\"");
        }
    }

    static double parseDouble(final String s) {
        try {
            return Double.parseDouble(s.trim());
        } catch (final NumberFormatException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type double precision: \"" + s + "\"");
        }
    }
}
