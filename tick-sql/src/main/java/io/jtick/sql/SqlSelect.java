package io.jtick.sql;

import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Distinct;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.SelectItem;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The SELECT list, GROUP BY, SAMPLE BY, DISTINCT [ON], LATEST ON, ORDER BY, LIMIT and OFFSET of one
 * statement, as the document's {@code select}, {@code by}, {@code orderBy} and {@code limit}, and
 * the projection from the engine's columns (group keys first) to the statement's.
 */
final class SqlSelect {
    private static final Set<String> AGGREGATES = Set.of("count", "sum", "avg", "mean", "min", "max", "first", "last", "wavg",
        "vwap", "median", "stddev_pop", "dev", "first_value", "last_value");

    private final SqlCompiler.Build b;
    private final List<Expression> exprs = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    /** For each statement column, the engine's result column it shows. */
    private final List<String> shows = new ArrayList<>();
    private final Map<String, Object> by = new LinkedHashMap<>();
    /** Key text (a normalized expression) -> key name. */
    private final Map<String, String> keyTexts = new LinkedHashMap<>();
    private final Map<String, Object> select = new LinkedHashMap<>();
    /** Engine column -> the text of the expression it computes, for ORDER BY. */
    private final Map<String, String> texts = new LinkedHashMap<>();
    private final Set<String> used = new HashSet<>();

    SqlSelect(final SqlCompiler.Build b) {
        this.b = b;
    }

    SqlPlan build() {
        for (final SelectItem<?> item : b.ps.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns) {
                for (final Expression e : b.star(item)) {
                    exprs.add(e);
                    names.add(SqlCompiler.ident(((Column) e).getColumnName()));
                }
            } else {
                exprs.add(item.getExpression());
                names.add(item.getAlias() != null ? SqlCompiler.ident(item.getAlias().getName()) : defaultName(item.getExpression()));
            }
        }
        final Distinct distinct = b.ps.getDistinct();
        final boolean distinctOn = distinct != null && distinct.getOnSelectItems() != null && !distinct.getOnSelectItems().isEmpty();
        boolean orderConsumed = false;
        if (b.clauses.latestBy() != null || distinctOn) {
            orderConsumed = latest(distinctOn);
        } else if (distinct != null) {
            for (int i = 0; i < exprs.size(); i++) {
                if (isAgg(exprs.get(i))) {
                    throw SqlException.notSupported("DISTINCT with aggregates");
                }
                shows.add(key(exprs.get(i), names.get(i)));
            }
        } else if (b.ps.getGroupBy() != null || b.clauses.sampleBy() != null || exprs.stream().anyMatch(SqlSelect::isAgg)) {
            grouped();
        } else {
            for (int i = 0; i < exprs.size(); i++) {
                final String n = unique(names.get(i));
                select.put(n, value(exprs.get(i)));
                texts.put(n, text(exprs.get(i)));
                shows.add(n);
            }
        }
        if (!orderConsumed) {
            orderBy();
        }
        final long[] lo = b.limitOffset();
        long offset = lo[1];
        if (lo[0] == -1) {
            offset = Long.MAX_VALUE;
            b.doc.put("limit", 1L);
        } else if (lo[0] > 0) {
            b.doc.put("limit", Math.addExact(lo[0], offset));
        }
        if (!by.isEmpty()) {
            // a list: a column by its name, any other key as {"name": expression}
            final List<Object> keys = new ArrayList<>();
            by.forEach((name, expr) -> keys.add(name.equals(expr) ? name : Map.of(name, expr)));
            b.doc.put("by", keys);
        }
        b.doc.put("select", select);
        final List<String> engine = new ArrayList<>(by.keySet());
        engine.addAll(select.keySet());
        final int[] projection = new int[shows.size()];
        for (int i = 0; i < projection.length; i++) {
            projection[i] = engine.indexOf(shows.get(i));
        }
        return new SqlPlan(null, List.copyOf(names), projection, offset, 0, false, false);
    }

    // ---- modes ----------------------------------------------------------------------------------

    private void grouped() {
        if (b.clauses.sampleBy() != null) {
            final Map<String, Object> xbar = new LinkedHashMap<>();
            xbar.put("xbar", List.of(duration(SqlLiterals.interval(b.clauses.sampleBy())), "time"));
            addKey("time", "col:time", xbar);
        }
        if (b.ps.getGroupBy() != null) {
            final ExpressionList<?> list = b.ps.getGroupBy().getGroupByExpressionList();
            if (b.ps.getGroupBy().getGroupingSets() != null && !b.ps.getGroupBy().getGroupingSets().isEmpty()) {
                throw SqlException.notSupported("GROUPING SETS");
            }
            for (final Object o : list) {
                final Expression e = (Expression) o;
                final Integer pos = SqlCompiler.Build.position(e);
                if (pos != null) {
                    if (pos < 1 || pos > exprs.size()) {
                        throw new SqlException(SqlException.UNDEFINED_COLUMN, "GROUP BY position " + pos + " is not in select list");
                    }
                    key(exprs.get(pos - 1), names.get(pos - 1));
                } else if (e instanceof Column c && c.getTable() == null && names.contains(SqlCompiler.ident(c.getColumnName()))
                    && !isTableColumn(c)) {
                    final int i = names.indexOf(SqlCompiler.ident(c.getColumnName()));
                    key(exprs.get(i), names.get(i));
                } else {
                    key(e, nameFor(e));
                }
            }
        }
        if (b.clauses.sampleBy() != null) {
            // QuestDB: the columns shown beside the aggregates are keys too
            for (int i = 0; i < exprs.size(); i++) {
                if (!isAgg(exprs.get(i)) && !keyTexts.containsKey(text(exprs.get(i)))) {
                    key(exprs.get(i), names.get(i));
                }
            }
        }
        for (int i = 0; i < exprs.size(); i++) {
            final Expression e = exprs.get(i);
            if (isAgg(e)) {
                final String n = unique(names.get(i));
                select.put(n, aggregate(e));
                texts.put(n, text(e));
                shows.add(n);
            } else {
                final String k = keyTexts.get(text(e));
                if (k == null) {
                    throw new SqlException("42803", "column \"" + e + "\" must appear in the GROUP BY clause or be used in an aggregate "
                        + "function");
                }
                shows.add(k);
            }
        }
    }

    /**
     * DISTINCT ON / LATEST ON: the last (or, ordered by time ascending, the first) row of each key.
     * Returns true when ORDER BY was used up.
     */
    private boolean latest(final boolean distinctOn) {
        final List<Expression> keys = new ArrayList<>();
        if (distinctOn) {
            for (final SelectItem<?> s : b.ps.getDistinct().getOnSelectItems()) {
                keys.add(s.getExpression());
            }
        } else {
            for (final String k : b.clauses.latestBy().split(",")) {
                keys.add(new Column(k));
            }
            if (!b.clauses.latestOn().equalsIgnoreCase("time")) {
                b.column(new Column(b.clauses.latestOn()));
            }
        }
        String pick = "last";
        boolean consumed = false;
        if (distinctOn) {
            consumed = true;
            final List<OrderByElement> order = b.orderBy() == null ? List.of() : b.orderBy();
            for (int i = 0; i < order.size(); i++) {
                final OrderByElement o = order.get(i);
                if (i < keys.size()) {
                    if (!text(o.getExpression()).equals(text(keys.get(i)))) {
                        throw new SqlException(SqlException.SYNTAX,
                            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
                    }
                    if (!o.isAsc()) {
                        throw SqlException.notSupported("DISTINCT ON ... ORDER BY the keys descending");
                    }
                } else if (i == keys.size() && text(o.getExpression()).equals("col:time")) {
                    pick = o.isAsc() ? "first" : "last";
                } else {
                    throw SqlException.notSupported("DISTINCT ON ... ORDER BY " + o + " (after the keys, only time ASC or DESC)");
                }
            }
        }
        for (final Expression k : keys) {
            key(k, nameFor(k));
        }
        for (int i = 0; i < exprs.size(); i++) {
            final Expression e = exprs.get(i);
            final String k = keyTexts.get(text(e));
            if (k != null) {
                shows.add(k);
            } else if (isAgg(e)) {
                throw SqlException.notSupported("aggregates with DISTINCT ON or LATEST ON");
            } else {
                final String n = unique(names.get(i));
                select.put(n, Map.of(pick, value(e)));
                texts.put(n, text(e));
                shows.add(n);
            }
        }
        return consumed;
    }

    private void orderBy() {
        final List<OrderByElement> order = b.orderBy();
        if (order == null) {
            return;
        }
        final List<Object> out = new ArrayList<>();
        for (final OrderByElement o : order) {
            final Expression e = o.getExpression();
            String target = null;
            final Integer pos = SqlCompiler.Build.position(e);
            if (pos != null) {
                if (pos < 1 || pos > shows.size()) {
                    throw new SqlException(SqlException.UNDEFINED_COLUMN, "ORDER BY position " + pos + " is not in select list");
                }
                target = shows.get(pos - 1);
            } else if (e instanceof Column c && c.getTable() == null && names.contains(SqlCompiler.ident(c.getColumnName()))) {
                target = shows.get(names.indexOf(SqlCompiler.ident(c.getColumnName())));
            } else {
                final String t = text(e);
                for (final Map.Entry<String, String> x : texts.entrySet()) {
                    if (x.getValue().equals(t)) {
                        target = x.getKey();
                    }
                }
                if (target == null) {
                    target = keyTexts.get(t);
                }
                if (target == null) {
                    // a column or aggregate the SELECT does not show: computed, ordered by, not sent
                    final boolean grouped = !by.isEmpty() || select.values().stream().anyMatch(v -> v instanceof Map<?, ?> m
                        && m.keySet().stream().anyMatch(k -> AGGREGATES.contains(String.valueOf(k)) || k.equals("wavg")));
                    if (grouped && !isAgg(e)) {
                        throw new SqlException("42803", "ORDER BY " + e
                            + " must appear in the GROUP BY clause or be used in an aggregate function");
                    }
                    target = unique(nameFor(e));
                    select.put(target, grouped ? aggregate(e) : value(e));
                    texts.put(target, t);
                }
            }
            out.add(o.isAsc() ? target : "-" + target);
        }
        b.doc.put("orderBy", out);
    }

    // ---- keys and names -------------------------------------------------------------------------

    /** Adds a group key for {@code e} (once); returns its engine name. */
    private String key(final Expression e, final String name) {
        final String t = text(e);
        final String k = keyTexts.get(t);
        if (k != null) {
            return k;
        }
        return addKey(unique(name), t, value(e));
    }

    private String addKey(final String name, final String text, final Object expr) {
        used.add(name);
        by.put(name, expr);
        keyTexts.put(text, name);
        return name;
    }

    private String unique(final String name) {
        String n = name;
        for (int i = 2; !used.add(n); i++) {
            n = name + "_" + i;
        }
        return n;
    }

    private boolean isTableColumn(final Column c) {
        return SqlCompiler.col(b.left, SqlCompiler.ident(c.getColumnName())) != null;
    }

    /** The name PostgreSQL gives an unnamed column. */
    static String defaultName(final Expression e) {
        if (e instanceof Column c) {
            return SqlCompiler.ident(c.getColumnName());
        }
        if (e instanceof Function f) {
            return f.getName().toLowerCase(Locale.ROOT);
        }
        if (e instanceof CastExpression c) {
            return defaultName(c.getLeftExpression());
        }
        return "?column?";
    }

    /** A name for a key or hidden column: the item's alias when an item computes it, else the default name. */
    private String nameFor(final Expression e) {
        final String t = text(e);
        for (int i = 0; i < exprs.size(); i++) {
            if (text(exprs.get(i)).equals(t)) {
                return names.get(i);
            }
        }
        final String d = defaultName(e);
        return d.equals("?column?") ? "expr" : d;
    }

    /** The expression in a comparable form: columns resolved to the engine's names. */
    private String text(final Expression e) {
        if (e instanceof Column c) {
            return "col:" + b.column(c);
        }
        if (e instanceof Parenthesis p) {
            return text(p.getExpression());
        }
        if (e instanceof BinaryExpression x) {
            return "(" + text(x.getLeftExpression()) + x.getStringExpression() + text(x.getRightExpression()) + ")";
        }
        if (e instanceof Function f && f.getParameters() != null) {
            final StringBuilder sb = new StringBuilder(f.getName().toLowerCase(Locale.ROOT)).append('(');
            for (final Object o : f.getParameters()) {
                sb.append(text((Expression) o)).append(',');
            }
            return sb.append(')').toString();
        }
        return e.toString().toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
    }

    // ---- expressions ----------------------------------------------------------------------------

    static boolean isAgg(final Expression e) {
        if (e instanceof Function f) {
            if (AGGREGATES.contains(f.getName().toLowerCase(Locale.ROOT))) {
                return true;
            }
            if (f.getParameters() != null) {
                for (final Object o : f.getParameters()) {
                    if (o instanceof Expression x && isAgg(x)) {
                        return true;
                    }
                }
            }
            return false;
        }
        if (e instanceof Parenthesis p) {
            return isAgg(p.getExpression());
        }
        if (e instanceof BinaryExpression x) {
            return isAgg(x.getLeftExpression()) || isAgg(x.getRightExpression());
        }
        if (e instanceof CastExpression c) {
            return isAgg(c.getLeftExpression());
        }
        return false;
    }

    /** An aggregate item: a function, or the VWAP written out, {@code sum(price*size)/sum(size)}. */
    private Object aggregate(final Expression e) {
        if (e instanceof Parenthesis p) {
            return aggregate(p.getExpression());
        }
        if (e instanceof CastExpression c) {
            return aggregate(c.getLeftExpression());
        }
        if (e instanceof Division d && isFn(d.getLeftExpression(), "sum") && isFn(d.getRightExpression(), "sum")) {
            final Expression num = strip(arg(d.getLeftExpression(), 0));
            final Expression den = strip(arg(d.getRightExpression(), 0));
            if (num instanceof Multiplication m) {
                final String w = text(den);
                if (text(m.getRightExpression()).equals(w)) {
                    return Map.of("wavg", List.of(value(den), value(m.getLeftExpression())));
                }
                if (text(m.getLeftExpression()).equals(w)) {
                    return Map.of("wavg", List.of(value(den), value(m.getRightExpression())));
                }
            }
        }
        if (!(e instanceof Function f) || !AGGREGATES.contains(f.getName().toLowerCase(Locale.ROOT))) {
            throw SqlException.notSupported("arithmetic over aggregates [expression=" + e + "] (one aggregate per column; "
                + "sum(price*size)/sum(size) is the VWAP)");
        }
        if (f.isDistinct()) {
            throw SqlException.notSupported(f.getName() + "(DISTINCT ...)");
        }
        final String name = f.getName().toLowerCase(Locale.ROOT);
        final int n = f.getParameters() == null ? 0 : f.getParameters().size();
        switch (name) {
            case "count":
                if (f.isAllColumns() || n == 0 || n == 1 && f.getParameters().get(0) instanceof AllColumns) {
                    return Map.of("count", "*");
                }
                return Map.of("count", value(arg(f, 0)));
            case "wavg":
            case "vwap":
                if (n != 2) {
                    throw new SqlException("42883", name + " takes two arguments: weights and values, like wavg(size, price)");
                }
                return Map.of("wavg", List.of(value(arg(f, 0)), value(arg(f, 1))));
            default:
                if (n != 1) {
                    throw new SqlException("42883", "function " + name + " takes one argument [arguments=" + n + "]");
                }
                final String kind = switch (name) {
                    case "mean" -> "avg";
                    case "stddev_pop" -> "dev";
                    case "first_value" -> "first";
                    case "last_value" -> "last";
                    default -> name;
                };
                return Map.of(kind, value(arg(f, 0)));
        }
    }

    private static Expression strip(final Expression e) {
        return e instanceof Parenthesis p ? strip(p.getExpression()) : e;
    }

    private static boolean isFn(final Expression e, final String name) {
        return strip(e) instanceof Function f && f.getName().equalsIgnoreCase(name) && f.getParameters() != null
            && f.getParameters().size() == 1;
    }

    private static Expression arg(final Expression f, final int i) {
        return (Expression) ((Function) strip(f)).getParameters().get(i);
    }

    /** A value expression: a column, a number, arithmetic, or a time bucket. */
    private Object value(final Expression e) {
        if (e instanceof Column c) {
            return b.column(c);
        }
        if (e instanceof LongValue l) {
            return l.getValue();
        }
        if (e instanceof DoubleValue d) {
            return d.getValue();
        }
        if (e instanceof SignedExpression s && (s.getExpression() instanceof LongValue || s.getExpression() instanceof DoubleValue)) {
            return b.literals.eval(s);
        }
        if (e instanceof Parenthesis p) {
            return value(p.getExpression());
        }
        if (e instanceof CastExpression c && c.getLeftExpression() instanceof Column) {
            return value(c.getLeftExpression());
        }
        final Object epochBucket = epochBucket(e);
        if (epochBucket != null) {
            return epochBucket;
        }
        if (e instanceof Addition || e instanceof Subtraction || e instanceof Multiplication || e instanceof Division) {
            final BinaryExpression x = (BinaryExpression) e;
            final String op = e instanceof Addition ? "+" : e instanceof Subtraction ? "-" : e instanceof Multiplication ? "*" : "/";
            return Map.of(op, List.of(value(x.getLeftExpression()), value(x.getRightExpression())));
        }
        if (e instanceof Function f) {
            final String n = f.getName().toLowerCase(Locale.ROOT);
            if (n.equals("date_bin") || n.equals("time_bucket") || n.equals("date_trunc")) {
                return bucket(f, n);
            }
            if (AGGREGATES.contains(n)) {
                throw new SqlException("42803", "aggregate " + n + " is not allowed here [expression=" + e + "]");
            }
            throw new SqlException("42883", "function " + n + " does not exist here (see docs/query.md \"SQL\" for the functions)");
        }
        throw SqlException.notSupported("expression " + e);
    }

    /**
     * {@code date_bin('1 minute', time[, origin])}, {@code time_bucket('1 minute', time)},
     * {@code date_trunc('minute', time)}: q's xbar.
     */
    private Object bucket(final Function f, final String n) {
        final int args = f.getParameters() == null ? 0 : f.getParameters().size();
        if (args < 2 || args > (n.equals("date_bin") ? 3 : 2)) {
            throw new SqlException("42883", n + " takes (interval, time" + (n.equals("date_bin") ? "[, origin]" : "") + ")");
        }
        final Object size = b.literals.eval(arg(f, 0));
        final long nanos;
        if (n.equals("date_trunc")) {
            final String unit = String.valueOf(size).toLowerCase(Locale.ROOT);
            nanos = switch (unit) {
                case "microseconds" -> 1_000L;
                case "milliseconds" -> 1_000_000L;
                case "second" -> 1_000_000_000L;
                case "minute" -> 60_000_000_000L;
                case "hour" -> 3_600_000_000_000L;
                case "day" -> 86_400_000_000_000L;
                default -> throw SqlException.notSupported("date_trunc('" + unit + "', ...) (microseconds to day)");
            };
        } else {
            nanos = size instanceof SqlLiterals.Interval i ? i.nanos() : SqlLiterals.interval(String.valueOf(size));
        }
        if (args == 3) {
            final long origin = SqlLiterals.timeNanos(b.literals.eval(arg(f, 2)));
            if (Math.floorMod(origin, nanos) != 0) {
                throw SqlException.notSupported("date_bin with an origin off the bucket grid [origin=" + arg(f, 2)
                    + "] (buckets start at multiples of the interval from 1970-01-01)");
            }
        }
        return Map.of("xbar", List.of(duration(nanos), value(arg(f, 1))));
    }

    /**
     * Grafana's {@code $__timeGroup(time, '1m')} as its PostgreSQL data source writes it,
     * {@code floor(extract(epoch from time)/60)*60}: a bucket of 60 s (q's xbar; the bucket comes back
     * as a timestamp, which Grafana reads as it reads PostgreSQL's epoch number). Null for anything else.
     */
    private Object epochBucket(final Expression e) {
        if (!(strip(e) instanceof Multiplication m) || !(strip(m.getLeftExpression()) instanceof Function f)
            || !f.getName().equalsIgnoreCase("floor") || f.getParameters() == null || f.getParameters().size() != 1
            || !(strip(arg(f, 0)) instanceof Division d) || !(strip(d.getLeftExpression()) instanceof ExtractExpression x)
            || !"epoch".equalsIgnoreCase(x.getName())) {
            return null;
        }
        final Object by = b.literals.eval(strip(d.getRightExpression()));
        final Object times = b.literals.eval(strip(m.getRightExpression()));
        if (!(by instanceof Number n) || !(times instanceof Number t) || n.doubleValue() != t.doubleValue() || n.doubleValue() <= 0) {
            throw SqlException.notSupported("floor(extract(epoch from ...)/n)*m other than Grafana's time bucket (n = m seconds) "
                + "[expression=" + e + "]");
        }
        final long nanos = Math.round(n.doubleValue() * 1e9);
        return Map.of("xbar", List.of(duration(nanos), value(x.getExpression())));
    }

    /** Nanoseconds as the shortest duration the engine reads ({@code 1m}, {@code 250ms}). */
    static String duration(final long ns) {
        final long[] units = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        final String[] names = {"d", "h", "m", "s", "ms", "us"};
        for (int i = 0; i < units.length; i++) {
            if (ns % units[i] == 0) {
                return ns / units[i] + names[i];
            }
        }
        return ns + "ns";
    }
}
