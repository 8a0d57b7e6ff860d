package io.jtick.core.query;

import io.jtick.core.query.exec.Execution;
import io.jtick.core.query.model.Json;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.Query.Agg;
import io.jtick.core.query.model.Query.AggKind;
import io.jtick.core.query.model.Query.Arith;
import io.jtick.core.query.model.Query.Col;
import io.jtick.core.query.model.Query.Item;
import io.jtick.core.query.model.Query.Node;
import io.jtick.core.query.model.Query.Num;
import io.jtick.core.query.model.Query.XBar;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.QueryParser;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Planner;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A grouped query answered by parts, the way TorQ's gateway splits one (map on each process,
 * reduce in the gateway): every part runs the same partial query — same {@code where},
 * {@code dates} and {@code by}, each aggregate replaced by parts that combine (avg → sum and count,
 * wavg → sum of w×x and sum of w) — and the partial groups merge here, so only group rows cross the
 * network. Holds for count, sum, avg, min, max, first, last and wavg without an as-of join; median
 * and dev need every value, so the engine never splits those queries.
 *
 * <p>The engine hands a split query to a {@link SplitSource}, which runs the parts (in this process
 * with {@link #runPartial}, in another by sending {@link #partialDocument}), hands each part's
 * groups to {@link #merge}, older days first, and ends with {@link #writeTo}: the merged groups
 * ordered and limited as the engine orders groups. Merged results equal the one-pass answer up to
 * floating-point summation order (sums of doubles are added in a different order). First takes the
 * value of the first part merged that has the group, last that of the last one.
 */
public final class SplitQuery {
    private static final Set<AggKind> SPLITTABLE = EnumSet.of(AggKind.COUNT, AggKind.SUM, AggKind.AVG, AggKind.MIN, AggKind.MAX,
        AggKind.FIRST, AggKind.LAST, AggKind.WAVG);
    private static final String PART = "jtick_part";

    private final Plan plan;
    private final Query q;
    private final QueryLimits limits;
    private final long startNanos;
    private final int parallelism;
    private final String document;
    private final Merge merge;
    private long rowsScanned;
    private int segments;

    private SplitQuery(final Plan plan, final QueryLimits limits, final long startNanos, final int parallelism) {
        this.plan = plan;
        this.q = plan.query();
        this.limits = limits;
        this.startNanos = startNanos;
        this.parallelism = parallelism;
        this.document = Json.write(partialDocument(q));
        this.merge = new Merge(plan, q);
    }

    /** The split of a prepared query, or null when it does not split (see the class comment). */
    static SplitQuery of(final PreparedQuery query, final QueryLimits limits, final int parallelism) {
        return splittable(query.plan.query()) ? new SplitQuery(query.plan, limits, query.startNanos, parallelism) : null;
    }

    /** Whether a query can be split: grouped, every select item a splittable aggregate, no as-of join. */
    private static boolean splittable(final Query q) {
        if (q.asof() != null || q.select().isEmpty()) {
            return false;
        }
        for (final Item i : q.select()) {
            if (!(i.expr() instanceof Agg a) || !SPLITTABLE.contains(a.kind())) {
                return false;
            }
        }
        for (final Item k : q.by()) {
            if ("xbar".equals(k.name()) || k.name().startsWith(PART)) {
                return false;
            }
        }
        return true;
    }

    /** The partial query every part runs, as a query document (JSON): keys as asked, and per aggregate its parts. */
    public String partialDocument() {
        return document;
    }

    /** The first day the query reads ({@link QuerySource#ALL_DAYS_FROM} when it names none). */
    public int fromDay() {
        return q.dates() == null ? QuerySource.ALL_DAYS_FROM : q.dates().from();
    }

    /** The last day the query reads ({@link QuerySource#ALL_DAYS_TO} when it names none). */
    public int toDay() {
        return q.dates() == null ? QuerySource.ALL_DAYS_TO : q.dates().to();
    }

    /** Whether the query reads a day (its range, and its set of dates when it lists them). */
    public boolean includesDay(final int epochDay) {
        return q.dates() == null || q.dates().contains(epochDay);
    }

    /**
     * Runs the partial query over a source in this process, with the engine's limits and threads;
     * null when the source has no such table. The result's {@link ResultTable#stats() stats} say
     * what the part read.
     */
    public ResultTable runPartial(final QuerySource source) {
        final TableSchema schema = source.schema(q.table());
        if (schema == null) {
            return null;
        }
        final ResultTable part = new ResultTable();
        new Execution(Planner.plan(QueryParser.parse(document), schema, null), source, limits, startNanos, parallelism).run(part);
        return part;
    }

    /**
     * Folds one part's result of {@link #partialDocument} into the merged groups; parts come older
     * days first.
     *
     * @param rowsScanned rows the part visited, and {@code segments} the segments it read, for the stats
     */
    public void merge(final ResultTable partial, final long rowsScanned, final int segments) {
        merge.add(partial);
        this.rowsScanned += rowsScanned;
        this.segments += segments;
    }

    /** Writes the merged groups, ordered and limited as the engine orders groups, and ends the sink. */
    public ResultStats writeTo(final ResultSink sink) {
        final ResultTable merged = merge.result(limits.maxRows());
        final int n = merged.rowCount();
        final int[] order = merged.order(orderColumns(plan, q), orderDesc(q));
        final int shown = q.limit() > 0 ? (int) Math.min(q.limit(), n) : n;
        merged.writeTo(sink, order, 0, shown);
        final ResultStats stats = new ResultStats(shown, rowsScanned, segments, System.nanoTime() - startNanos);
        sink.end(stats);
        return stats;
    }

    /** orderBy columns first, then the group keys: the engine's order (groups sorted by key, then a stable orderBy). */
    private static int[] orderColumns(final Plan plan, final Query q) {
        final int[] cols = new int[q.orderBy().size() + q.by().size()];
        for (int i = 0; i < q.orderBy().size(); i++) {
            cols[i] = plan.outNames().indexOf(q.orderBy().get(i).column());
        }
        for (int k = 0; k < q.by().size(); k++) {
            cols[q.orderBy().size() + k] = k;
        }
        return cols;
    }

    private static boolean[] orderDesc(final Query q) {
        final boolean[] desc = new boolean[q.orderBy().size() + q.by().size()];
        for (int i = 0; i < q.orderBy().size(); i++) {
            desc[i] = q.orderBy().get(i).desc();
        }
        return desc;
    }

    // ---- the partial query ----------------------------------------------------------------------

    /** The query each side runs: keys as asked, and per aggregate its parts {@code jtick_part<i>_<j>}. */
    private static Map<String, Object> partialDocument(final Query q) {
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", q.table());
        if (q.dates() != null) {
            doc.put("dates", dates(q.dates()));
        }
        if (q.whereJson() != null) {
            doc.put("where", q.whereJson());
        }
        final List<Object> by = new ArrayList<>();
        for (final Item k : q.by()) {
            by.add(Map.of(k.name(), json(k.expr())));
        }
        if (!by.isEmpty()) {
            doc.put("by", by);
        }
        final Map<String, Object> select = new LinkedHashMap<>();
        for (int i = 0; i < q.select().size(); i++) {
            final Agg a = (Agg) q.select().get(i).expr();
            final List<Object> parts = parts(a);
            for (int j = 0; j < parts.size(); j++) {
                select.put(PART + i + "_" + j, parts.get(j));
            }
        }
        doc.put("select", select);
        return doc;
    }

    /** The aggregates that make up {@code a} when merged. */
    private static List<Object> parts(final Agg a) {
        final Node x = a.args().isEmpty() ? null : a.args().get(0);
        switch (a.kind()) {
            case COUNT:
                return List.of(Map.of("count", x == null ? "*" : json(x)));
            case AVG:
                // the count of non-null values: x*0+1 is null (skipped by sum) exactly where x is
                return List.of(Map.of("sum", json(x)), Map.of("sum", Map.of("+", List.of(Map.of("*", List.of(json(x), 0L)), 1L))));
            case WAVG: {
                // the weights of non-null values only, as the one-pass wavg: w+v*0 is null exactly where v is
                final Node v = a.args().get(1);
                return List.of(Map.of("sum", Map.of("*", List.of(json(x), json(v)))),
                    Map.of("sum", Map.of("+", List.of(json(x), Map.of("*", List.of(json(v), 0L))))));
            }
            default:
                return List.of(Map.of(a.kind().label(), json(x)));
        }
    }

    private static Object dates(final Query.Dates d) {
        if (d.set() != null) {
            final List<Object> l = new ArrayList<>();
            for (final int day : d.set()) {
                l.add(java.time.LocalDate.ofEpochDay(day).toString());
            }
            return l;
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        if (d.from() != QuerySource.ALL_DAYS_FROM) {
            m.put("from", java.time.LocalDate.ofEpochDay(d.from()).toString());
        }
        if (d.to() != QuerySource.ALL_DAYS_TO) {
            m.put("to", java.time.LocalDate.ofEpochDay(d.to()).toString());
        }
        return m;
    }

    /** An expression back in document form. */
    private static Object json(final Node n) {
        if (n instanceof Col c) {
            return c.name();
        }
        if (n instanceof Num num) {
            return num.integral() ? (Object) num.longValue() : (Object) num.value();
        }
        if (n instanceof Arith a) {
            return Map.of(String.valueOf(a.op()), List.of(json(a.left()), json(a.right())));
        }
        if (n instanceof XBar x) {
            return Map.of("xbar", List.of(x.size(), json(x.arg())));
        }
        final Agg a = (Agg) n;
        final List<Object> args = new ArrayList<>();
        a.args().forEach(arg -> args.add(json(arg)));
        return Map.of(a.kind().label(), args.size() == 1 ? args.get(0) : args);
    }

    // ---- the merge ------------------------------------------------------------------------------

    /** Partial groups folded by key, in the order they first appear. */
    private static final class Merge {
        private final Plan plan;
        private final Query q;
        private final int keys;
        private final Map<List<Object>, Object[]> groups = new HashMap<>();
        private final List<List<Object>> order = new ArrayList<>();

        Merge(final Plan plan, final Query q) {
            this.plan = plan;
            this.q = q;
            this.keys = q.by().size();
        }

        /** Folds one side's partial result (the older side first). */
        void add(final ResultTable part) {
            final int aggs = q.select().size();
            for (int r = 0; r < part.rowCount(); r++) {
                final List<Object> key = new ArrayList<>(keys);
                for (int k = 0; k < keys; k++) {
                    key.add(part.get(r, k));
                }
                Object[] state = groups.get(key);
                final boolean fresh = state == null;
                if (fresh) {
                    state = new Object[aggs * 2];
                    groups.put(key, state);
                    order.add(key);
                }
                int col = keys;
                for (int i = 0; i < aggs; i++) {
                    final AggKind kind = ((Agg) q.select().get(i).expr()).kind();
                    final Object a = part.get(r, col);
                    final Object b = kind == AggKind.AVG || kind == AggKind.WAVG ? part.get(r, col + 1) : null;
                    col += kind == AggKind.AVG || kind == AggKind.WAVG ? 2 : 1;
                    fold(state, i, kind, a, b, fresh);
                }
            }
        }

        private static void fold(final Object[] s, final int i, final AggKind kind, final Object a, final Object b, final boolean fresh) {
            final int v = 2 * i;
            switch (kind) {
                case COUNT, SUM -> s[v] = add(s[v], a);
                case AVG, WAVG -> {
                    s[v] = add(s[v], a);
                    s[v + 1] = add(s[v + 1], b);
                }
                case MIN, MAX -> {
                    if (a != null && (s[v] == null || compare(a, s[v]) * (kind == AggKind.MIN ? 1 : -1) < 0)) {
                        s[v] = a;
                    }
                }
                case FIRST -> {
                    if (fresh) {
                        s[v] = a;
                    }
                }
                case LAST -> s[v] = a;
                default -> throw new IllegalStateException("not splittable: " + kind);
            }
        }

        private static Object add(final Object acc, final Object x) {
            if (x == null) {
                return acc;
            }
            if (acc == null) {
                return x;
            }
            if (acc instanceof Long l && x instanceof Long m) {
                return l + m;
            }
            return ((Number) acc).doubleValue() + ((Number) x).doubleValue();
        }

        private static int compare(final Object x, final Object y) {
            if (x instanceof Long a && y instanceof Long b) {
                return Long.compare(a, b);
            }
            return Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue());
        }

        /** The merged groups as the plan's result columns (unordered). */
        ResultTable result(final long maxRows) {
            if (order.size() > maxRows) {
                throw QueryException.tooLarge("result over the row limit [groups>" + maxRows + ", maxRows=" + maxRows
                    + "]: narrow the query or group more coarsely");
            }
            if (keys == 0 && order.isEmpty()) {
                // aggregates without by answer one row even over no rows (count 0, min null), as the engine does
                groups.put(List.of(), new Object[q.select().size() * 2]);
                order.add(List.of());
            }
            final ResultTable out = new ResultTable();
            out.begin(plan.outNames(), plan.outTypes());
            for (final List<Object> key : order) {
                for (int k = 0; k < keys; k++) {
                    put(out, plan.outTypes().get(k), key.get(k));
                }
                final Object[] s = groups.get(key);
                for (int i = 0; i < q.select().size(); i++) {
                    final AggKind kind = ((Agg) q.select().get(i).expr()).kind();
                    final ValueType type = plan.outTypes().get(keys + i);
                    final Object v = s[2 * i];
                    switch (kind) {
                        case COUNT, SUM -> put(out, type, v == null ? 0L : v);
                        case AVG, WAVG -> {
                            final double d = s[2 * i + 1] == null ? 0 : ((Number) s[2 * i + 1]).doubleValue();
                            put(out, type, d == 0 ? null : (Object) (((Number) v).doubleValue() / d));
                        }
                        default -> put(out, type, v);
                    }
                }
                out.endRow();
            }
            return out;
        }

        private static void put(final ResultTable out, final ValueType type, final Object v) {
            if (v == null) {
                out.nullValue();
            } else if (type == ValueType.SYMBOL) {
                out.symbol((String) v);
            } else if (type == ValueType.FLOAT64 || type == ValueType.FLOAT32) {
                out.value(((Number) v).doubleValue());
            } else {
                out.value(((Number) v).longValue());
            }
        }
    }
}
