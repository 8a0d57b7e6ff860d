package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.core.query.model.Json;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.sql.SqlPlan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Compiles a q-sql {@code select}/{@code exec} ({@link QNode.Select}) or an {@code aj} into the
 * engine's query document, the same document {@code SqlCompiler} writes for SQL
 * ({@code docs/kdb-ipc.md} "q on the RDB and HDB" lists the subset): {@code from} to {@code table}
 * (an {@code aj} to {@code asof}), {@code where} conditions to {@code where} and {@code date} ones to
 * {@code dates}, the columns to {@code select}, {@code by} to {@code by} ({@code xbar} buckets
 * included), {@code select[n]}/{@code n#} to {@code limit}. Columns are named as q names them.
 * Anything else is {@code 'nyi} naming it, before anything runs.
 */
public final class QCompiler {
    /** q's aggregate names to the engine's. */
    private static final Map<String, String> AGGREGATES = Map.of("count", "count", "sum", "sum", "avg", "avg", "min", "min", "max", "max",
        "first", "first", "last", "last", "med", "median", "dev", "dev");
    private static final Map<String, String> ARITHMETIC = Map.of("+", "+", "-", "-", "*", "*", "%", "/");

    /**
     * What a compilation reads.
     *
     * @param source      the tables
     * @param partitioned the source is date-partitioned (the HDB, the gateway): {@code date} is a column of every table
     * @param symsOf      the syms of a table's column, for {@code like} (table, column) -> syms
     */
    public record Context(QuerySource source, boolean partitioned, BiFunction<String, String, List<String>> symsOf) {
    }

    private final Context cx;
    private TableSchema left;
    private TableSchema right;
    /** Right-table columns used: column -> result name. */
    private final Map<String, String> rightColumns = new LinkedHashMap<>();
    private QWhere where;
    private final List<Object> select = new ArrayList<>();
    private final List<Object> by = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final Set<String> used = new LinkedHashSet<>();
    private long limit;
    /** Result order: column names, {@code -name} descending ({@code xasc}/{@code xdesc}, {@code select[-n]}). */
    private final List<String> order = new ArrayList<>();
    private boolean reverse;
    private int keys;
    private boolean aggregate;

    private QCompiler(final Context cx) {
        this.cx = cx;
    }

    /** A select or exec, limited to {@code take} rows (0: all) by an enclosing {@code n#}. */
    public static QPlan compile(final QNode.Select s, final long take, final Context cx) {
        return new QCompiler(cx).select(s, take);
    }

    /**
     * {@code `c xasc select ...} / {@code `c`d xdesc select ...} (then limited to {@code take} rows by an
     * enclosing {@code n#}): the select's rows sorted by those result columns, stably, as q sorts; the
     * engine's ORDER BY.
     */
    public static QPlan sorted(final QNode.Select s, final List<String> columns, final boolean desc, final long take,
                               final Context cx) {
        if (s.limit() != null || s.exec()) {
            throw QException.nyi((s.exec() ? "xasc/xdesc of an exec" : "xasc/xdesc of a select[n]") + " (n#`c xdesc select ... runs)");
        }
        final QCompiler c = new QCompiler(cx);
        for (final String col : columns) {
            c.order.add(desc ? "-" + col : col);
        }
        return c.select(s, take);
    }

    /** {@code aj[`sym`time; t1; t2]} on its own. */
    public static QPlan asOfJoin(final List<QNode> args, final long take, final Context cx) {
        final QCompiler c = new QCompiler(cx);
        c.aj(args, null);
        c.limit = take;
        return c.plan(false);
    }

    /** A table's schema; q's {@code 'trade} (the name) when there is none. */
    public static TableSchema table(final QuerySource source, final String name) {
        final TableSchema s = source.schema(name);
        if (s == null) {
            throw new QException(name);
        }
        return s;
    }

    /** The table a {@code from} (or {@code count}, {@code meta}) names: a name or a symbol. */
    public static String tableName(final QNode n) {
        if (n instanceof QNode.Name name) {
            return name.name();
        }
        if (n instanceof QNode.Lit l && l.value().type() == -KdbType.SYMBOL) {
            return l.value().text();
        }
        return null;
    }

    private QPlan select(final QNode.Select s, final long take) {
        if (s.from() instanceof QNode.Apply a && a.function() instanceof QNode.Name f && f.name().equals("aj")) {
            aj(a.args(), s);
        } else {
            final String t = tableName(s.from());
            if (t == null) {
                throw QException.nyi("select from " + s.from() + " (from names a table or an aj)");
            }
            left = table(cx.source(), t);
            where = new QWhere(left, cx);
            where.add(s.where());
            columns(s);
        }
        limit = limit(s.limit());
        if (limit < -1) {
            lastRows(s);
        }
        if (take != 0) {
            limit = limit == 0 ? take : Math.min(limit, take);
        }
        return plan(s.exec());
    }

    private static long limit(final QNode n) {
        if (n == null) {
            return 0;
        }
        if (!(n instanceof QNode.Lit l) || l.value().type() != -KdbType.LONG && l.value().type() != -KdbType.INT) {
            throw QException.type("select[n] takes an integer [n=" + n + "]");
        }
        final long v = l.value().longValue();
        return v == 0 ? -1 : v < 0 ? v - 1 : v;
    }

    /**
     * {@code select[-n]}, the last n rows: on the RDB, whose rows are in arrival (time) order, the engine's
     * newest n by time ({@code ORDER BY time DESC LIMIT n}, which reads only those rows), answered oldest
     * first. Not on the HDB, whose partitions q keeps in sym order.
     */
    private void lastRows(final QNode.Select s) {
        final long n = -(limit + 1);
        if (cx.partitioned()) {
            throw QException.nyi("select[-n] on the HDB (its rows are in sym order; n#`time xdesc select ... runs)");
        }
        if (s.by() != null || aggregate || s.exec()) {
            throw QException.nyi("select[-n] with by, aggregates or exec (select[-n] of rows runs)");
        }
        if (!order.isEmpty()) {
            throw QException.nyi("xasc/xdesc of a select[-n] (n#`c xdesc select ... runs)");
        }
        final boolean hasTime = names.isEmpty() ? left.indexOf("time") >= 0 : names.contains("time");
        if (!hasTime || right != null) {
            throw QException.nyi("select[-n] without the time column or of an aj (select[-n] of rows with time runs)");
        }
        order.add("-time");
        reverse = true;
        limit = n;
    }

    private void columns(final QNode.Select s) {
        if (s.by() != null) {
            for (final QNode.Col c : s.by()) {
                final String name = name(c);
                by.add(c.expr() instanceof QNode.Name n && n.name().equals(name) && column(n.name()) != null
                    ? name : Map.of(name, byExpr(c.expr())));
                keys++;
            }
        }
        boolean anyAggregate = false;
        boolean anyPlain = false;
        for (final QNode.Col c : s.columns()) {
            final boolean[] agg = new boolean[1];
            final Object e = expr(c.expr(), agg, false);
            anyAggregate |= agg[0];
            anyPlain |= !agg[0];
            select.add(Map.of(name(c), e));
        }
        if (anyPlain && (anyAggregate || s.by() != null)) {
            throw QException.nyi("a column that is not an aggregate beside " + (s.by() != null ? "by" : "aggregates")
                + " (q would answer lists; each column here is one aggregate: sum, avg, count, first, last...)");
        }
        aggregate = anyAggregate && s.by() == null;
        if (s.columns().isEmpty() && s.by() == null && cx.partitioned()) {
            // a partitioned table's columns are date first, then its own (q's select from a partitioned table)
            names.add(unique("date"));
            select.add("date");
            for (final ColumnDef d : left.columns()) {
                names.add(unique(d.name()));
                select.add(d.name());
            }
        }
        if (s.columns().isEmpty() && s.by() != null) {
            // select by sym from t: the last row of each group, its other columns named as the table names them
            for (final ColumnDef d : left.columns()) {
                if (!used.contains(d.name())) {
                    names.add(unique(d.name()));
                }
            }
        }
    }

    private void aj(final List<QNode> args, final QNode.Select outer) {
        if (args.size() != 3) {
            throw QException.length("aj takes 3 arguments [given=" + args.size() + "]");
        }
        if (!(args.get(0) instanceof QNode.Lit k) || k.value().type() != KdbType.SYMBOL
            || !List.of("sym", "time").equals(List.of((String[]) k.value().data()))) {
            throw QException.nyi("aj on " + args.get(0) + " (aj joins on `sym`time)");
        }
        final QNode.Select t1 = asSelect(args.get(1));
        final QNode.Select t2 = asSelect(args.get(2));
        if (t2.by() != null || !t2.where().isEmpty() || t1.by() != null) {
            throw QException.nyi("aj of a grouped table or of quotes filtered by where (aj[`sym`time; select ... where ...; quote] runs)");
        }
        left = table(cx.source(), tableName(t1.from()));
        right = table(cx.source(), tableName(t2.from()));
        where = new QWhere(left, cx);
        where.add(t1.where());
        final List<String> rightNames = new ArrayList<>();
        if (t2.columns().isEmpty()) {
            for (final ColumnDef d : right.columns()) {
                rightNames.add(d.name());
            }
        } else {
            for (final QNode.Col c : t2.columns()) {
                if (!(c.expr() instanceof QNode.Name n) || c.name() != null) {
                    throw QException.nyi("aj of quotes with computed columns [column=" + c + "]");
                }
                rightNames.add(n.name());
            }
        }
        if (outer != null) {
            where.add(outer.where());
            columns(outer);
            return;
        }
        for (final QNode.Col c : t1.columns().isEmpty() ? allColumns(left) : t1.columns()) {
            final boolean[] agg = new boolean[1];
            select.add(Map.of(name(c), expr(c.expr(), agg, false)));
            if (agg[0]) {
                throw QException.nyi("aj of an aggregated table");
            }
        }
        for (final String n : rightNames) {
            if (!n.equals("sym") && !n.equals("time") && !used.contains(n)) {
                if (right.indexOf(n) < 0) {
                    throw new QException(n);
                }
                rightColumns.put(n, n);
                names.add(unique(n));
                select.add(n);
            }
        }
    }

    private static List<QNode.Col> allColumns(final TableSchema t) {
        final List<QNode.Col> out = new ArrayList<>();
        for (final ColumnDef d : t.columns()) {
            out.add(new QNode.Col(null, new QNode.Name(d.name())));
        }
        return out;
    }

    private static QNode.Select asSelect(final QNode n) {
        if (n instanceof QNode.Select s) {
            if (s.exec() || s.limit() != null) {
                throw QException.nyi("aj of an exec or select[n]");
            }
            return s;
        }
        if (tableName(n) != null) {
            return new QNode.Select(false, null, List.of(), null, n, List.of());
        }
        throw QException.nyi("aj of " + n + " (aj takes tables or selects)");
    }

    private QPlan plan(final boolean exec) {
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", left.name());
        where.finish(doc);
        if (!select.isEmpty()) {
            doc.put("select", select);
        }
        if (!by.isEmpty()) {
            doc.put("by", by);
        }
        if (right != null) {
            final Map<String, Object> asof = new LinkedHashMap<>();
            asof.put("table", right.name());
            final Map<String, Object> cols = new LinkedHashMap<>();
            rightColumns.forEach((col, name) -> cols.put(name, col));
            asof.put("select", cols);
            doc.put("asof", asof);
        }
        if (!order.isEmpty()) {
            doc.put("orderBy", order);
        }
        if (limit != 0) {
            doc.put("limit", limit);
        }
        if (names.isEmpty()) {
            for (final ColumnDef d : left.columns()) {
                names.add(unique(d.name()));
            }
        }
        final int[] projection = new int[names.size()];
        final boolean[] timespan = new boolean[names.size()];
        for (int i = 0; i < projection.length; i++) {
            projection[i] = i;
            timespan[i] = left.timeOfDay() && names.get(i).equals("time") && (select.isEmpty() || select.contains("time")
                || select.contains(Map.of("time", "time")));
        }
        final boolean grouped = keys > 0 || aggregate;
        return new QPlan(new SqlPlan(Json.write(doc), List.copyOf(names), projection, 0, limit < 0 ? 0 : limit, false, grouped), keys, exec,
            aggregate, timespan, reverse);
    }

    // ------------------------------------------------------------------ names

    /** q's name of a column: its own, else the first column its expression names, else x; made unique as q does (price1). */
    private String name(final QNode.Col c) {
        final String derived = c.name() != null ? c.name() : firstName(c.expr());
        final String n = unique(derived == null ? "x" : derived);
        names.add(n);
        return n;
    }

    private String unique(final String name) {
        String n = name;
        for (int k = 1; !used.add(n); k++) {
            n = name + k;
        }
        return n;
    }

    private String firstName(final QNode e) {
        if (e instanceof QNode.Name n) {
            final String base = base(n.name());
            if (column(base) != null || base.equals("date") || right != null && right.indexOf(base) >= 0) {
                final int dot = n.name().indexOf('.');
                return dot > 0 ? n.name().substring(dot + 1) : base;
            }
            return null;
        }
        if (e instanceof QNode.Dyad d) {
            final String l = firstName(d.left());
            return l != null ? l : firstName(d.right());
        }
        if (e instanceof QNode.Apply a) {
            for (final QNode x : a.args()) {
                final String n = firstName(x);
                if (n != null) {
                    return n;
                }
            }
        }
        return null;
    }

    private static String base(final String name) {
        final int dot = name.indexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    // ------------------------------------------------------------------ expressions

    private ColumnDef column(final String name) {
        final int i = left.indexOf(name);
        return i < 0 ? null : left.column(i);
    }

    /** A column reference: the left table's, {@code date}, or (in an aj) the quotes'. */
    private String ref(final String name) {
        if (column(name) != null || name.equals("date")) {
            return name;
        }
        if (right != null && right.indexOf(name) >= 0) {
            rightColumns.put(name, name);
            return name;
        }
        throw new QException(name);
    }

    private Object expr(final QNode e, final boolean[] aggregate, final boolean inside) {
        if (e instanceof QNode.Name n) {
            if (n.name().equals("i")) {
                throw QException.nyi("the virtual column i outside count i");
            }
            final int dot = n.name().indexOf('.');
            if (dot > 0) {
                return Map.of("xbar", List.of(unit(n.name(), 1), ref(n.name().substring(0, dot))));
            }
            return ref(n.name());
        }
        if (e instanceof QNode.Lit l && l.value().atom() && (l.value().data() instanceof Long || l.value().data() instanceof Double)
            && l.value().type() != -KdbType.TIMESTAMP && l.value().type() != -KdbType.DATE) {
            return l.value().data();
        }
        if (e instanceof QNode.Dyad d) {
            final String op = ARITHMETIC.get(d.op());
            if (op != null) {
                return Map.of(op, List.of(expr(d.left(), aggregate, true), expr(d.right(), aggregate, true)));
            }
            switch (d.op()) {
                case "xbar" -> {
                    return Map.of("xbar", List.of(bucket(d.left(), d.right()), base(expr(d.right(), aggregate, true))));
                }
                case "wavg", "wsum" -> {
                    requireOuter(inside, e);
                    aggregate[0] = true;
                    final Object w = expr(d.left(), new boolean[1], true);
                    final Object x = expr(d.right(), new boolean[1], true);
                    return d.op().equals("wavg") ? Map.of("wavg", List.of(w, x)) : Map.of("sum", Map.of("*", List.of(w, x)));
                }
                default -> throw QException.nyi(d.op() + " in a column [column=" + e + "]");
            }
        }
        if (e instanceof QNode.Apply a && a.function() instanceof QNode.Name f && a.args().size() == 1) {
            final String agg = AGGREGATES.get(f.name());
            if (agg != null) {
                requireOuter(inside, e);
                aggregate[0] = true;
                final QNode arg = a.args().get(0);
                if (f.name().equals("count")) {
                    return Map.of("count", arg instanceof QNode.Name n && n.name().equals("i") ? "*" : expr(arg, new boolean[1], true));
                }
                return Map.of(agg, expr(arg, new boolean[1], true));
            }
            throw QException.nyi(f.name() + " [column=" + e + "]");
        }
        throw QException.nyi("column " + e);
    }

    private static Object base(final Object e) {
        if (e instanceof Map<?, ?> m && m.containsKey("xbar")) {
            return ((List<?>) m.get("xbar")).get(1);
        }
        return e;
    }

    private static void requireOuter(final boolean inside, final QNode e) {
        if (inside) {
            throw QException.nyi("an aggregate inside an expression [column=" + e + "]");
        }
    }

    private Object byExpr(final QNode e) {
        final Object x = expr(e, new boolean[1], false);
        if (x instanceof Map<?, ?> m && (m.containsKey("count") || m.containsKey("sum") || m.containsKey("wavg"))) {
            throw QException.nyi("an aggregate in by [by=" + e + "]");
        }
        return x;
    }

    /** The bucket of {@code n xbar x}: with {@code time.minute} (.second, .hh) n of that unit; a timespan; else the number. */
    private static Object bucket(final QNode size, final QNode of) {
        if (!(size instanceof QNode.Lit l) || !l.value().atom()) {
            throw QException.type("xbar takes a number or a timespan on its left [left=" + size + "]");
        }
        final QValue v = l.value();
        if (v.type() == -KdbType.TIMESPAN || v.type() == -KdbType.MINUTE || v.type() == -KdbType.SECOND || v.type() == -KdbType.TIME) {
            return QWhere.nanosOfDay(v);
        }
        if (of instanceof QNode.Name n && n.name().indexOf('.') > 0) {
            if (v.type() != -KdbType.LONG && v.type() != -KdbType.INT) {
                throw QException.type("xbar of " + n.name() + " takes an integer [left=" + size + "]");
            }
            return unit(n.name(), v.longValue());
        }
        return v.data();
    }

    /** {@code n} units of {@code time.minute}, {@code time.second}, {@code time.hh}, as the engine's duration. */
    private static String unit(final String dotted, final long n) {
        final String unit = dotted.substring(dotted.indexOf('.') + 1);
        return switch (unit) {
            case "minute", "mm", "uu" -> n + "m";
            case "second", "ss", "vv" -> n + "s";
            case "hh" -> n + "h";
            default -> throw QException.nyi(dotted + " (time.minute, time.second and time.hh bucket here)");
        };
    }
}
