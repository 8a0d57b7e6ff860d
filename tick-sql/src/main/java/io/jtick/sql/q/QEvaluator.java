package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.sql.SqlException;
import io.jtick.sql.SqlPlan;
import io.jtick.sql.SqlRunner;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Answers q over one query source ({@code docs/kdb-ipc.md} "q on the RDB and HDB"): selects,
 * execs and {@code aj}s compiled by {@link QCompiler} and run by the same {@link SqlRunner} (the
 * same engine) as SQL and {@code POST /api/query}; {@code n#}, {@code count}, {@code tables[]},
 * {@code meta}, {@code cols}, a bare table name. Every refusal is a {@link QException} whose text
 * is q's error. Stateless and thread-safe.
 */
public final class QEvaluator {
    private final SqlRunner runner;
    private final QuerySource source;
    private final Supplier<List<TableSchema>> tables;
    private final QCompiler.Context context;
    /**
     * Documents prepared, by their text: a client asking the same question again (a dashboard, one sym's last trade) runs the
     * bound plan again instead of parsing and binding its document (plans bind schemas, not data; q here never reads the clock).
     */
    private final ConcurrentHashMap<String, SqlRunner.Prepared> prepared = new ConcurrentHashMap<>();
    private static final int CACHED = 4096;

    /**
     * @param partitioned the source is date-partitioned (the HDB, the gateway): {@code date} is a column of its tables
     */
    public QEvaluator(final SqlRunner runner, final QuerySource source, final Supplier<List<TableSchema>> tables,
                      final boolean partitioned) {
        this.runner = runner;
        this.source = source;
        this.tables = tables;
        this.context = new QCompiler.Context(source, partitioned, this::syms);
    }

    /** Parses and answers q text. */
    public QValue evaluate(final String text) {
        return evaluate(QParser.parse(text));
    }

    /**
     * A q message compiled, not yet run: {@link #inline} says whether its answer is bounded
     * ({@link SqlPlan#runsInline}: the same decision the PostgreSQL port makes), so that a port may run it
     * on the connection's I/O thread; {@link #run} answers it.
     */
    public record Call(boolean inline, Supplier<QValue> answer) {
        public QValue run() {
            return answer.get();
        }
    }

    /**
     * Compiles {@code n} (a select, {@code n#} of one, an {@code aj}) and says where it may run; catalog
     * calls ({@code tables[]}, {@code meta}, {@code cols}, {@code count t}) are bounded; anything else is
     * compiled when it runs. Throws the q errors compiling finds.
     */
    public Call prepare(final QNode n) {
        if (n instanceof QNode.Select s) {
            return call(QCompiler.compile(s, 0, context));
        }
        if (sort(n) != null) {
            return call(sorted((QNode.Dyad) n, 0));
        }
        if (n instanceof QNode.Dyad d && d.op().equals("#") && d.left() instanceof QNode.Lit l && l.value().atom()
            && (l.value().type() == -KdbType.LONG || l.value().type() == -KdbType.INT) && l.value().longValue() > 0) {
            if (d.right() instanceof QNode.Select s) {
                return call(QCompiler.compile(s, l.value().longValue(), context));
            }
            if (sort(d.right()) != null) {
                return call(sorted((QNode.Dyad) d.right(), l.value().longValue()));
            }
        }
        if (n instanceof QNode.Apply a && a.function() instanceof QNode.Name f) {
            switch (f.name()) {
                case "aj" -> {
                    return call(QCompiler.asOfJoin(a.args(), 0, context));
                }
                case "tables", "meta", "cols" -> {
                    return new Call(true, () -> evaluate(n));
                }
                case "count" -> {
                    return new Call(a.args().size() == 1 && QCompiler.tableName(a.args().get(0)) != null, () -> evaluate(n));
                }
                default -> {
                }
            }
        }
        return new Call(false, () -> evaluate(n));
    }

    private Call call(final QPlan plan) {
        return new Call(plan.sql().runsInline(), () -> run(plan));
    }

    public QValue evaluate(final QNode n) {
        if (n instanceof QNode.Select s) {
            return run(QCompiler.compile(s, 0, context));
        }
        if (sort(n) != null) {
            return run(sorted((QNode.Dyad) n, 0));
        }
        if (n instanceof QNode.Dyad d && d.op().equals("#") && d.left() instanceof QNode.Lit l && l.value().atom()) {
            if (l.value().type() != -KdbType.LONG && l.value().type() != -KdbType.INT) {
                throw QException.type("n# takes an integer [n=" + l + "]");
            }
            final long take = l.value().longValue();
            if (take <= 0) {
                throw QException.nyi(take + "# (n# with n > 0 runs)");
            }
            return take(d.right(), take);
        }
        if (n instanceof QNode.Name name) {
            if (source.schema(name.name()) != null) {
                return take(n, 0);
            }
            throw new QException(name.name());
        }
        if (n instanceof QNode.Apply a && a.function() instanceof QNode.Name f) {
            final List<QNode> args = a.args();
            switch (f.name()) {
                case "tables" -> {
                    if (!args.isEmpty() && !(args.size() == 1 && args.get(0) instanceof QNode.Name x && x.name().equals("::"))) {
                        throw QException.nyi("tables of a namespace");
                    }
                    return new QValue(KdbType.SYMBOL, tables.get().stream().map(TableSchema::name).sorted().toArray(String[]::new));
                }
                case "count" -> {
                    return count(one(f.name(), args));
                }
                case "meta" -> {
                    return meta(QCompiler.table(source, tableArg(f.name(), one(f.name(), args))));
                }
                case "cols" -> {
                    final List<String> names = columns(QCompiler.table(source, tableArg(f.name(), one(f.name(), args))));
                    return new QValue(KdbType.SYMBOL, names.toArray(new String[0]));
                }
                case "aj" -> {
                    return run(QCompiler.asOfJoin(args, 0, context));
                }
                default -> {
                }
            }
        }
        throw QException.nyi(QParser.abbreviate(String.valueOf(n))
            + " (this port answers select, exec, aj, n#, count, tables[], meta, cols)");
    }

    private static QNode one(final String f, final List<QNode> args) {
        if (args.size() != 1) {
            throw new QException("rank [" + f + " takes one argument, given " + args.size() + "]");
        }
        return args.get(0);
    }

    private static String tableArg(final String f, final QNode n) {
        final String t = QCompiler.tableName(n);
        if (t == null) {
            throw QException.nyi(f + " of " + n + " (" + f + " takes a table name)");
        }
        return t;
    }

    /** The columns of {@code `c xasc t} / {@code `c`d xdesc t}, or null when {@code n} is not one. */
    private static List<String> sort(final QNode n) {
        if (!(n instanceof QNode.Dyad d) || !d.op().equals("xasc") && !d.op().equals("xdesc")) {
            return null;
        }
        if (!(d.left() instanceof QNode.Lit l) || !l.value().isSymbol()) {
            throw QException.type(d.op() + " takes column names on its left [left=" + d.left() + "]");
        }
        return l.value().atom() ? List.of(l.value().text()) : List.of((String[]) l.value().data());
    }

    private QPlan sorted(final QNode.Dyad d, final long take) {
        final List<String> columns = sort(d);
        final QNode.Select s;
        if (d.right() instanceof QNode.Select sel) {
            s = sel;
        } else if (QCompiler.tableName(d.right()) != null) {
            QCompiler.table(source, QCompiler.tableName(d.right()));
            s = new QNode.Select(false, null, List.of(), null, d.right(), List.of());
        } else {
            throw QException.nyi(d.op() + " of " + d.right() + " (" + d.op() + " of a select or a table runs)");
        }
        return QCompiler.sorted(s, columns, d.op().equals("xdesc"), take, context);
    }

    private QValue take(final QNode x, final long take) {
        if (x instanceof QNode.Select s) {
            return run(QCompiler.compile(s, take, context));
        }
        if (sort(x) != null) {
            return run(sorted((QNode.Dyad) x, take));
        }
        if (x instanceof QNode.Apply a && a.function() instanceof QNode.Name f && f.name().equals("aj")) {
            return run(QCompiler.asOfJoin(a.args(), take, context));
        }
        final String t = QCompiler.tableName(x);
        if (t == null) {
            throw QException.nyi(take + "#" + x + " (n# takes a select, an aj or a table)");
        }
        QCompiler.table(source, t);
        return run(QCompiler.compile(new QNode.Select(false, null, List.of(), null, new QNode.Name(t), List.of()), take, context));
    }

    private QValue count(final QNode x) {
        final String t = QCompiler.tableName(x);
        if (t != null) {
            QCompiler.table(source, t);
            final QValue n = run(QCompiler.compile(new QNode.Select(true, null,
                List.of(new QNode.Col("n", new QNode.Apply(new QNode.Name("count"), List.of(new QNode.Name("i"))))), null,
                new QNode.Name(t), List.of()), 0, context));
            return n;
        }
        final QValue v = evaluate(x);
        if (v.type() == KdbType.TABLE) {
            return new QValue(-KdbType.LONG, (long) QValues.parts(v)[1].item(0).count());
        }
        return new QValue(-KdbType.LONG, (long) (v.type() == KdbType.DICT ? QValues.parts(v)[0].count() : v.count()));
    }

    private List<String> columns(final TableSchema t) {
        final List<String> out = new ArrayList<>();
        if (context.partitioned()) {
            out.add("date");
        }
        for (final ColumnDef d : t.columns()) {
            out.add(d.name());
        }
        return out;
    }

    /** {@code meta t}: a table keyed by {@code c} with q's type char {@code t}, {@code f} and {@code a}. */
    private QValue meta(final TableSchema t) {
        final List<String> names = columns(t);
        final StringBuilder chars = new StringBuilder();
        final String[] empty = new String[names.size()];
        java.util.Arrays.fill(empty, "");
        for (final String name : names) {
            if (name.equals("date") && t.indexOf("date") < 0) {
                chars.append('d');
                continue;
            }
            final int i = t.indexOf(name);
            final int type = QTableSink.kdbType(ValueType.of(t.type(i)), i == TableSchema.TIME && t.timeOfDay());
            chars.append(TYPE_CHARS.charAt(type));
        }
        final String[] attributes = empty.clone();
        final int sym = names.indexOf("sym");
        if (sym >= 0) {
            // a partition is sorted and parted by sym; the RDB keeps a sym index, as kdb-tick's g#sym
            attributes[sym] = context.partitioned() ? "p" : "g";
        }
        return QValues.dict(QValues.table(List.of("c"), List.of(new QValue(KdbType.SYMBOL, names.toArray(new String[0])))),
            QValues.table(List.of("t", "f", "a"), List.of(QValue.chars(chars.toString()), new QValue(KdbType.SYMBOL, empty),
                new QValue(KdbType.SYMBOL, attributes))));
    }

    /** q's type chars by kdb+ type code. */
    private static final String TYPE_CHARS = " bg xhijefcspmdznuvt";

    /** The syms of a table's symbol column ({@code like}): the engine's own grouping. */
    private List<String> syms(final String table, final String column) {
        final String doc = io.jtick.core.query.model.Json.write(Map.of("table", table, "select",
            List.of(Map.of("n", Map.of("count", "*"))), "by", List.of(column)));
        final QTableSink sink = new QTableSink(new boolean[0]);
        execute(new SqlPlan(doc, List.of(column, "n"), new int[] {0, 1}, 0, 0, false, true), sink);
        return List.of((String[]) sink.column(0).data());
    }

    private void execute(final SqlPlan plan, final QTableSink sink) {
        try {
            final SqlRunner.Prepared cached = prepared.get(plan.json());
            final SqlRunner.Prepared p;
            if (cached != null) {
                p = cached.again();
            } else {
                p = runner.prepare(plan, source);
                if (prepared.size() >= CACHED) {
                    prepared.clear();
                }
                prepared.put(plan.json(), p);
            }
            runner.execute(p, source, sink);
        } catch (final SqlException e) {
            throw QErrors.of(e);
        }
    }

    /** Runs a compiled select; its answer as q shapes it: a table, a keyed table, or exec's vector, atom or dictionary. */
    QValue run(final QPlan plan) {
        final QTableSink sink = new QTableSink(plan.timespan());
        execute(plan.sql(), sink);
        final int n = sink.names().size();
        if (plan.reverse()) {
            return QValues.reverse(sink.table(0, n));
        }
        if (!plan.exec()) {
            return plan.keys() == 0 ? sink.table(0, n) : QValues.dict(sink.table(0, plan.keys()), sink.table(plan.keys(), n));
        }
        if (plan.keys() == 0) {
            if (n == 1) {
                return plan.aggregate() && sink.rows() == 1 ? sink.column(0).item(0) : sink.column(0);
            }
            final List<QValue> values = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                values.add(plan.aggregate() && sink.rows() == 1 ? sink.column(c).item(0) : sink.column(c));
            }
            return QValues.dict(new QValue(KdbType.SYMBOL, sink.names().toArray(new String[0])), new QValue(0, values));
        }
        if (plan.keys() == 1 && n == 2) {
            return QValues.dict(sink.column(0), sink.column(1));
        }
        throw QException.nyi("exec with several by keys or columns (exec c by k from t runs; select gives the keyed table)");
    }
}
