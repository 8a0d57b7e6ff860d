package io.jtick.core.query.model;

import io.jtick.core.query.model.Query.Agg;
import io.jtick.core.query.model.Query.AggKind;
import io.jtick.core.query.model.Query.Arith;
import io.jtick.core.query.model.Query.Col;
import io.jtick.core.query.model.Query.Cond;
import io.jtick.core.query.model.Query.Item;
import io.jtick.core.query.model.Query.Node;
import io.jtick.core.query.model.Query.Num;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.model.Query.Order;
import io.jtick.core.query.model.Query.XBar;
import io.jtick.core.table.QuerySource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Query document → {@link Query}: checks the shape of every field and names what is wrong. The
 * legacy row-selection fields of the first RDB API ({@code syms}, {@code from}, {@code to},
 * {@code columns}) are accepted and mapped onto {@code where} and {@code select}, and those of the
 * first HDB API ({@code date}, {@code fromDate}/{@code toDate}) onto {@code dates}.
 */
public final class QueryParser {
    private static final Set<String> FIELDS = Set.of("table", "dates", "where", "select", "by", "asof", "orderBy", "limit",
        "syms", "from", "to", "columns", "date", "fromDate", "toDate");

    private QueryParser() {
    }

    public static Query parse(final String json) {
        final Object doc = Json.parse(json);
        if (!(doc instanceof Map<?, ?>)) {
            throw QueryException.bad("a query must be a JSON object like {\"table\":\"trade\"}");
        }
        @SuppressWarnings("unchecked")
        final Map<String, Object> m = (Map<String, Object>) doc;
        for (final String k : m.keySet()) {
            if (!FIELDS.contains(k)) {
                throw QueryException.bad("unknown query field [field=" + k + "]: expected one of table, dates, where, select, by, "
                    + "asof, orderBy, limit");
            }
        }
        final Object t = m.get("table");
        if (!(t instanceof String table) || table.isBlank()) {
            throw QueryException.bad("table is required: a table name like \"trade\"");
        }
        final Query.Dates dates = legacyDates(m, dates(m.get("dates")));

        final List<Cond> where = new ArrayList<>();
        final Object whereJson = m.get("where");
        if (whereJson != null && whereJson != Json.NULL) {
            where(whereJson, where);
        }
        final Map<String, Object> legacy = new LinkedHashMap<>();
        final Object syms = m.get("syms");
        if (syms != null && syms != Json.NULL) {
            if (!(syms instanceof List<?> l)) {
                throw QueryException.bad("syms must be a list of symbols");
            }
            if (!l.isEmpty()) {
                where.add(new Cond("sym", Op.IN, strings(l, "syms")));
                legacy.put("sym", Map.of("in", l));
            }
        }
        final Object from = m.get("from");
        final Object to = m.get("to");
        if (from != null && from != Json.NULL || to != null && to != Json.NULL) {
            if (from != null && from != Json.NULL && to != null && to != Json.NULL) {
                final Literals.TimeLit f = Literals.time(from, "from");
                final Literals.TimeLit t2 = Literals.time(to, "to");
                if (f.timeOfDay() == t2.timeOfDay() && f.nanos() > t2.nanos()) {
                    throw QueryException.bad("from is after to [from=" + from + ", to=" + to + "]");
                }
            }
            final Map<String, Object> time = new LinkedHashMap<>();
            if (from != null && from != Json.NULL) {
                where.add(new Cond("time", Op.GE, List.of(from)));
                time.put(">=", from);
            }
            if (to != null && to != Json.NULL) {
                where.add(new Cond("time", Op.LE, List.of(to)));
                time.put("<=", to);
            }
            legacy.put("time", time);
        }
        Object pushDown = whereJson == Json.NULL ? null : whereJson;
        if (!legacy.isEmpty()) {
            final List<Object> all = new ArrayList<>();
            if (pushDown instanceof List<?> l) {
                all.addAll(l);
            } else if (pushDown != null) {
                all.add(pushDown);
            }
            all.add(legacy);
            pushDown = all;
        }

        List<Item> select = select(m.get("select"));
        final Object columns = m.get("columns");
        if (columns != null && columns != Json.NULL) {
            if (!select.isEmpty()) {
                throw QueryException.bad("give select or columns, not both");
            }
            if (!(columns instanceof List<?> l)) {
                throw QueryException.bad("columns must be a list of column names");
            }
            select = select(l);
        }
        final List<Item> by = by(m.get("by"));
        final Query.AsOf asof = asof(m.get("asof"));
        final List<Order> orderBy = orderBy(m.get("orderBy"));
        final long limit = limit(m.get("limit"));

        final Set<String> names = new HashSet<>();
        for (final Item i : by) {
            if (!names.add(i.name())) {
                throw QueryException.bad("duplicate result column [column=" + i.name() + "]");
            }
        }
        for (final Item i : select) {
            if (!names.add(i.name())) {
                throw QueryException.bad("duplicate result column [column=" + i.name() + "]: name it, like {\"name\": ...}");
            }
        }
        return new Query(table, dates, List.copyOf(where), pushDown, List.copyOf(select), List.copyOf(by), asof,
            List.copyOf(orderBy), limit);
    }

    // ---- dates ----------------------------------------------------------------------------------

    /** The first HDB API's {@code date}, or {@code fromDate}/{@code toDate} (inclusive, each optional), as {@code dates}. */
    private static Query.Dates legacyDates(final Map<String, Object> m, final Query.Dates dates) {
        final Object date = given(m.get("date"));
        final Object fromDate = given(m.get("fromDate"));
        final Object toDate = given(m.get("toDate"));
        if (date == null && fromDate == null && toDate == null) {
            return dates;
        }
        if (dates != null) {
            throw QueryException.bad("give dates, or the older date or fromDate/toDate, not both");
        }
        if (date != null) {
            if (fromDate != null || toDate != null) {
                throw QueryException.bad("give date or fromDate/toDate, not both [date=" + date + ", fromDate=" + fromDate + ", toDate="
                    + toDate + "]");
            }
            final int d = Literals.day(date, "date");
            return new Query.Dates(d, d, null);
        }
        final int from = fromDate == null ? QuerySource.ALL_DAYS_FROM : Literals.day(fromDate, "fromDate");
        final int to = toDate == null ? QuerySource.ALL_DAYS_TO : Literals.day(toDate, "toDate");
        if (from > to) {
            throw QueryException.bad("from date is after to date [fromDate=" + fromDate + ", toDate=" + toDate + "]");
        }
        return new Query.Dates(from, to, null);
    }

    private static Object given(final Object v) {
        return v == Json.NULL ? null : v;
    }

    private static Query.Dates dates(final Object v) {
        if (v == null || v == Json.NULL) {
            return null;
        }
        if (v instanceof String) {
            final int d = Literals.day(v, "dates");
            return new Query.Dates(d, d, null);
        }
        if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                throw QueryException.bad("dates must not be empty");
            }
            final int[] set = new int[l.size()];
            for (int i = 0; i < set.length; i++) {
                set[i] = Literals.day(l.get(i), "dates");
            }
            Arrays.sort(set);
            return new Query.Dates(set[0], set[set.length - 1], set);
        }
        if (v instanceof Map<?, ?> m) {
            for (final Object k : m.keySet()) {
                if (!"from".equals(k) && !"to".equals(k)) {
                    throw QueryException.bad("dates takes from and to [field=" + k + "]");
                }
            }
            final int from = m.get("from") == null ? QuerySource.ALL_DAYS_FROM : Literals.day(m.get("from"), "dates.from");
            final int to = m.get("to") == null ? QuerySource.ALL_DAYS_TO : Literals.day(m.get("to"), "dates.to");
            if (from > to) {
                throw QueryException.bad("dates: from is after to [from=" + m.get("from") + ", to=" + m.get("to") + "]");
            }
            return new Query.Dates(from, to, null);
        }
        throw QueryException.bad("dates must be a date, a list of dates or {\"from\":...,\"to\":...} [dates=" + v + "]");
    }

    // ---- where ----------------------------------------------------------------------------------

    private static void where(final Object v, final List<Cond> out) {
        if (v instanceof List<?> l) {
            for (final Object o : l) {
                where(o, out);
            }
            return;
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw QueryException.bad("where must be an object like {\"sym\":{\"in\":[\"AAPL\"]}} or a list of them [where=" + v + "]");
        }
        for (final Map.Entry<?, ?> e : m.entrySet()) {
            final String column = (String) e.getKey();
            final Object spec = e.getValue();
            if (spec instanceof Map<?, ?> ops) {
                if (ops.isEmpty()) {
                    throw QueryException.bad("empty condition [column=" + column + "]");
                }
                for (final Map.Entry<?, ?> op : ops.entrySet()) {
                    out.add(cond(column, (String) op.getKey(), op.getValue()));
                }
            } else if (spec instanceof List<?> l) {
                out.add(new Cond(column, Op.IN, scalars(l, column)));
            } else {
                out.add(new Cond(column, Op.EQ, List.of(scalar(spec, column))));
            }
        }
    }

    private static Cond cond(final String column, final String opName, final Object value) {
        final Op op;
        switch (opName) {
            case "=":
            case "==":
            case "eq":
                op = Op.EQ;
                break;
            case "!=":
            case "<>":
            case "ne":
                op = Op.NE;
                break;
            case "<":
            case "lt":
                op = Op.LT;
                break;
            case "<=":
            case "le":
                op = Op.LE;
                break;
            case ">":
            case "gt":
                op = Op.GT;
                break;
            case ">=":
            case "ge":
                op = Op.GE;
                break;
            case "in":
                op = Op.IN;
                break;
            case "within":
                op = Op.WITHIN;
                break;
            default:
                throw QueryException.bad("unknown operator [column=" + column + ", op=" + opName
                    + "]: expected one of = != < <= > >= in within");
        }
        if (op == Op.IN) {
            if (!(value instanceof List<?> l)) {
                throw QueryException.bad("in takes a list [column=" + column + ", value=" + value + "]");
            }
            return new Cond(column, op, scalars(l, column));
        }
        if (op == Op.WITHIN) {
            if (!(value instanceof List<?> l) || l.size() != 2) {
                throw QueryException.bad("within takes [low, high] [column=" + column + ", value=" + value + "]");
            }
            return new Cond(column, op, scalars(l, column));
        }
        return new Cond(column, op, List.of(scalar(value, column)));
    }

    private static List<Object> scalars(final List<?> l, final String column) {
        final List<Object> out = new ArrayList<>(l.size());
        for (final Object o : l) {
            out.add(scalar(o, column));
        }
        return out;
    }

    private static Object scalar(final Object v, final String column) {
        if (v instanceof String || v instanceof Long || v instanceof Double || v instanceof Boolean) {
            return v;
        }
        throw QueryException.bad("bad value [column=" + column + ", value=" + v + "]: expected a string, number or boolean");
    }

    private static List<Object> strings(final List<?> l, final String what) {
        for (final Object o : l) {
            if (!(o instanceof String s) || s.isEmpty()) {
                throw QueryException.bad(what + " must be a list of non-empty strings [value=" + o + "]");
            }
        }
        return new ArrayList<>(l);
    }

    // ---- select, by -----------------------------------------------------------------------------

    private static List<Item> select(final Object v) {
        if (v == null || v == Json.NULL || "*".equals(v)) {
            return List.of();
        }
        final List<Item> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            for (final Object o : l) {
                if (o instanceof String s) {
                    out.add(new Item(name(s), new Col(s)));
                } else if (o instanceof Map<?, ?> m && m.size() == 1) {
                    final Map.Entry<?, ?> e = m.entrySet().iterator().next();
                    out.add(new Item(name((String) e.getKey()), node(e.getValue())));
                } else {
                    throw QueryException.bad("select items are column names or {\"name\": expression} [item=" + o + "]");
                }
            }
        } else if (v instanceof Map<?, ?> m) {
            for (final Map.Entry<?, ?> e : m.entrySet()) {
                out.add(new Item(name((String) e.getKey()), node(e.getValue())));
            }
        } else {
            throw QueryException.bad("select must be a list of columns or an object of named expressions [select=" + v + "]");
        }
        return out;
    }

    private static List<Item> by(final Object v) {
        if (v == null || v == Json.NULL) {
            return List.of();
        }
        final List<?> l = v instanceof List<?> list ? list : List.of(v);
        final List<Item> out = new ArrayList<>();
        for (final Object o : l) {
            if (o instanceof String s) {
                out.add(new Item(name(s), new Col(s)));
            } else if (o instanceof Map<?, ?> m && m.size() == 1) {
                final Map.Entry<?, ?> e = m.entrySet().iterator().next();
                final String key = (String) e.getKey();
                if ("xbar".equals(key)) {
                    final Node n = node(o);
                    out.add(new Item(keyName(n), n));
                } else {
                    out.add(new Item(name(key), node(e.getValue())));
                }
            } else {
                throw QueryException.bad("by items are column names or {\"name\": {\"xbar\": [\"1m\", \"time\"]}} [item=" + o + "]");
            }
        }
        for (final Item i : out) {
            if (i.expr() instanceof Agg) {
                throw QueryException.bad("by cannot hold an aggregate [column=" + i.name() + "]");
            }
        }
        return out;
    }

    private static String keyName(final Node n) {
        Node x = n;
        while (!(x instanceof Col c)) {
            if (x instanceof XBar xb) {
                x = xb.arg();
            } else {
                throw QueryException.bad("name this by expression, like {\"bar\": {\"xbar\": [...]}}");
            }
        }
        return c.name();
    }

    private static String name(final String s) {
        if (s == null || !s.matches("[A-Za-z_][A-Za-z0-9_]{0,63}")) {
            throw QueryException.bad("bad result column name [name=" + s + "]: letters, digits and _, starting with a letter");
        }
        return s;
    }

    /** An expression: a column, a number, or {"op": args} with op an aggregate, + - * / or xbar. */
    private static Node node(final Object v) {
        if (v instanceof String s) {
            return new Col(s);
        }
        if (v instanceof Long l) {
            return new Num(l, l, true);
        }
        if (v instanceof Double d) {
            return new Num(d, (long) (double) d, false);
        }
        if (!(v instanceof Map<?, ?> m) || m.size() != 1) {
            throw QueryException.bad("bad expression [expression=" + Json.write(v)
                + "]: expected a column name, a number or {\"function\": arguments}");
        }
        final Map.Entry<?, ?> e = m.entrySet().iterator().next();
        final String f = (String) e.getKey();
        final Object args = e.getValue();
        switch (f) {
            case "+":
            case "-":
            case "*":
            case "/":
            case "%": {
                final List<?> l = list(args, f, 2);
                return new Arith(f.equals("%") ? '/' : f.charAt(0), node(l.get(0)), node(l.get(1)));
            }
            case "xbar": {
                final List<?> l = list(args, f, 2);
                return new XBar(l.get(0), node(l.get(1)));
            }
            default:
                break;
        }
        final AggKind kind = aggKind(f);
        if (kind == AggKind.COUNT) {
            if (args == null || "*".equals(args) || "i".equals(args) || args instanceof List<?> l0 && l0.isEmpty()) {
                return new Agg(kind, List.of());
            }
            return new Agg(kind, List.of(node(args instanceof List<?> l1 && l1.size() == 1 ? l1.get(0) : args)));
        }
        if (kind == AggKind.WAVG) {
            final List<?> l = list(args, f, 2);
            return new Agg(kind, List.of(node(l.get(0)), node(l.get(1))));
        }
        final Object a = args instanceof List<?> l && l.size() == 1 ? l.get(0) : args;
        if (a instanceof List<?>) {
            throw QueryException.bad(f + " takes one argument [arguments=" + Json.write(args) + "]");
        }
        return new Agg(kind, List.of(node(a)));
    }

    private static List<?> list(final Object args, final String f, final int n) {
        if (!(args instanceof List<?> l) || l.size() != n) {
            throw QueryException.bad(f + " takes a list of " + n + " arguments [arguments=" + Json.write(args) + "]");
        }
        return l;
    }

    private static AggKind aggKind(final String f) {
        switch (f) {
            case "count":
                return AggKind.COUNT;
            case "sum":
                return AggKind.SUM;
            case "avg":
            case "mean":
                return AggKind.AVG;
            case "min":
                return AggKind.MIN;
            case "max":
                return AggKind.MAX;
            case "first":
                return AggKind.FIRST;
            case "last":
                return AggKind.LAST;
            case "wavg":
            case "vwap":
                return AggKind.WAVG;
            case "median":
            case "med":
                return AggKind.MEDIAN;
            case "dev":
                return AggKind.DEV;
            default:
                throw QueryException.bad("unknown function [function=" + f + "]: expected count, sum, avg, min, max, first, last, "
                    + "wavg, vwap, median, dev, xbar or + - * /");
        }
    }

    // ---- asof, orderBy, limit -------------------------------------------------------------------

    private static Query.AsOf asof(final Object v) {
        if (v == null || v == Json.NULL) {
            return null;
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw QueryException.bad("asof must be an object like {\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}");
        }
        for (final Object k : m.keySet()) {
            if (!Set.of("table", "select", "columns", "tolerance", "on").contains(k)) {
                throw QueryException.bad("unknown asof field [field=" + k + "]: expected table, select, tolerance, on");
            }
        }
        if (!(m.get("table") instanceof String table) || table.isBlank()) {
            throw QueryException.bad("asof needs a table, like {\"table\":\"quote\"}");
        }
        final Object on = m.get("on");
        if (on != null && !List.of("sym", "time").equals(on)) {
            throw QueryException.bad("asof joins on [\"sym\",\"time\"] only [on=" + Json.write(on) + "]");
        }
        final List<String> cols = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        Object sel = m.get("select");
        if (sel == null) {
            sel = m.get("columns");
        }
        if (sel instanceof List<?> l) {
            for (final Object o : l) {
                if (!(o instanceof String s)) {
                    throw QueryException.bad("asof select takes column names [item=" + o + "]");
                }
                cols.add(s);
                names.add(name(s));
            }
        } else if (sel instanceof Map<?, ?> sm) {
            for (final Map.Entry<?, ?> e : sm.entrySet()) {
                if (!(e.getValue() instanceof String s)) {
                    throw QueryException.bad("asof select takes {\"alias\": \"column\"} [item=" + e + "]");
                }
                names.add(name((String) e.getKey()));
                cols.add(s);
            }
        } else if (sel != null) {
            throw QueryException.bad("asof select must be a list of columns or {\"alias\": \"column\"}");
        }
        final Object tol = m.get("tolerance");
        final long tolerance = tol == null || tol == Json.NULL ? -1 : Literals.duration(tol, "asof.tolerance");
        return new Query.AsOf(table, cols, names, tolerance);
    }

    private static List<Order> orderBy(final Object v) {
        if (v == null || v == Json.NULL) {
            return List.of();
        }
        final List<?> l = v instanceof List<?> list ? list : List.of(v);
        final List<Order> out = new ArrayList<>();
        for (final Object o : l) {
            if (o instanceof String s && !s.isEmpty()) {
                out.add(s.startsWith("-") ? new Order(s.substring(1), true) : new Order(s, false));
            } else if (o instanceof Map<?, ?> m && m.size() == 1) {
                final Map.Entry<?, ?> e = m.entrySet().iterator().next();
                final Object dir = e.getValue();
                if (!"asc".equals(dir) && !"desc".equals(dir)) {
                    throw QueryException.bad("orderBy direction is asc or desc [column=" + e.getKey() + ", direction=" + dir + "]");
                }
                out.add(new Order((String) e.getKey(), "desc".equals(dir)));
            } else {
                throw QueryException.bad("orderBy items are column names (\"-name\" for descending) or {\"name\":\"desc\"} "
                    + "[item=" + o + "]");
            }
        }
        return out;
    }

    private static long limit(final Object v) {
        if (v == null || v == Json.NULL) {
            return 0;
        }
        if (v instanceof Long l && l > 0) {
            return l;
        }
        throw QueryException.bad("limit must be a positive integer [limit=" + v + "]");
    }
}
