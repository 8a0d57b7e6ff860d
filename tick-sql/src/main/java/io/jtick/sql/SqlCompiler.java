package io.jtick.sql;

import io.jtick.core.query.model.Json;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiles one SELECT into the engine's query document ({@code docs/query.md} "SQL"): the engine
 * is the only one, SQL is another way of writing its documents. JSqlParser parses (QuestDB's
 * clauses are taken out first by {@link QuestDbClauses}); this class walks the tree: FROM and an
 * ASOF JOIN to {@code table} and {@code asof}, WHERE to {@code where} and {@code dates} (the
 * {@link SqlWhere} part), the SELECT list to {@code select} or {@code by} and aggregates (the
 * {@link SqlSelect} part), GROUP BY / SAMPLE BY / DISTINCT ON / LATEST ON to {@code by},
 * ORDER BY, LIMIT and OFFSET. What the engine cannot run is refused with {@code 0A000} naming
 * the construct, before anything runs.
 */
public final class SqlCompiler {
    private SqlCompiler() {
    }

    /**
     * @param nowNanos what {@code now()} is for this statement (epoch ns)
     */
    public static SqlPlan compile(final String sql, final QuerySource source, final SqlParams params, final long nowNanos) {
        final Parsed parsed = parse(sql);
        final QuestDbClauses clauses = parsed.clauses();
        final Statement st = parsed.statement();
        if (!(st instanceof Select select)) {
            throw SqlException.notSupported("statement " + st.getClass().getSimpleName().replace("Statement", "").toUpperCase(Locale.ROOT)
                + " (only SELECT runs here)");
        }
        if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) {
            throw SqlException.notSupported("WITH");
        }
        if (!(select instanceof PlainSelect ps)) {
            throw SqlException.notSupported(select instanceof net.sf.jsqlparser.statement.select.SetOperationList
                ? "UNION, INTERSECT and EXCEPT" : "a parenthesised or VALUES query");
        }
        return new SqlCompiler.Build(ps, clauses, source, new SqlLiterals(nowNanos, params)).plan();
    }

    /** A statement as parsed: the QuestDB clauses taken out and JSqlParser's tree (read, never changed, so shared). */
    private record Parsed(QuestDbClauses clauses, Statement statement) {
    }

    /** The engine's aggregates, as the document names them. */
    private static final java.util.Set<String> ENGINE_AGGREGATES = java.util.Set.of("count", "sum", "avg", "min", "max", "first", "last",
        "wavg", "median", "dev");

    private static final int CACHED = 4096;
    /** Parsed statements by text: a prepared statement bound again and again is parsed once. */
    private static final ConcurrentHashMap<String, Parsed> PARSED = new ConcurrentHashMap<>();

    private static Parsed parse(final String sql) {
        final Parsed cached = PARSED.get(sql);
        if (cached != null) {
            return cached;
        }
        final QuestDbClauses clauses = QuestDbClauses.of(sql);
        final Statement st;
        try {
            // the parser itself on this thread: CCJSqlParserUtil.parse(String) runs it on an executor (a timeout guard)
            st = CCJSqlParserUtil.newParser(clauses.sql()).Statement();
        } catch (final net.sf.jsqlparser.parser.ParseException | net.sf.jsqlparser.parser.TokenMgrException e) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: " + firstLine(e));
        }
        if (st == null) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: no statement");
        }
        final Parsed p = new Parsed(clauses, st);
        if (PARSED.size() >= CACHED) {
            PARSED.clear();
        }
        PARSED.put(sql, p);
        return p;
    }

    static String firstLine(final Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getMessage() == null) {
            t = t.getCause();
        }
        final String m = t.getCause() != null && t.getCause().getMessage() != null ? t.getCause().getMessage()
            : String.valueOf(t.getMessage());
        final String line = m.split("\n")[0].trim();
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    /** The column of a table by name, or null. */
    static ColumnDef col(final TableSchema t, final String name) {
        final int i = t.indexOf(name);
        return i < 0 ? null : t.column(i);
    }

    /** Strips the quotes of a quoted name; folds an unquoted one to lower case, as PostgreSQL does. */
    static String ident(final String name) {
        if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
            return name.substring(1, name.length() - 1).replace("\"\"", "\"");
        }
        return name.toLowerCase(Locale.ROOT);
    }

    /** One statement's compilation: the tables, the column references and the document being built. */
    static final class Build {
        final PlainSelect ps;
        final QuestDbClauses clauses;
        final SqlLiterals literals;
        final TableSchema left;
        final String leftAlias;
        final TableSchema right;
        final String rightAlias;
        /** Right-table columns the statement uses: column -> its name in the result. */
        final Map<String, String> rightColumns = new LinkedHashMap<>();
        final Map<String, Object> doc = new LinkedHashMap<>();

        Build(final PlainSelect ps, final QuestDbClauses clauses, final QuerySource source, final SqlLiterals literals) {
            this.ps = ps;
            this.clauses = clauses;
            this.literals = literals;
            if (ps.getFromItem() == null) {
                throw SqlException.notSupported("SELECT without FROM");
            }
            if (!(ps.getFromItem() instanceof Table t)) {
                throw SqlException.notSupported("FROM a subquery or function (FROM names one table)");
            }
            this.left = table(source, t);
            this.leftAlias = t.getAlias() == null ? left.name() : ident(t.getAlias().getName());
            final List<Join> joins = ps.getJoins() == null ? List.of() : ps.getJoins();
            if (joins.size() > 1 || joins.size() == 1 && !clauses.asof()) {
                throw SqlException.notSupported("JOIN (only QuestDB's trade ASOF JOIN quote ON (sym) runs)");
            }
            if (joins.isEmpty() && clauses.asof()) {
                throw new SqlException(SqlException.SYNTAX, "ASOF JOIN without a table");
            }
            if (joins.size() == 1) {
                final Join j = joins.get(0);
                if (!(j.getRightItem() instanceof Table rt) || j.isLeft() || j.isRight() || j.isFull() || j.isCross() || j.isNatural()) {
                    throw SqlException.notSupported("this form of ASOF JOIN (expected: ASOF JOIN <table> [alias] ON (sym))");
                }
                this.right = table(source, rt);
                this.rightAlias = rt.getAlias() == null ? right.name() : ident(rt.getAlias().getName());
                checkJoinCondition(j);
            } else {
                this.right = null;
                this.rightAlias = null;
            }
            if (clauses.sampleBy() != null && SqlCompiler.col(left, "time") == null) {
                throw new SqlException(SqlException.UNDEFINED_COLUMN, "SAMPLE BY needs a time column [table=" + left.name() + "]");
            }
        }

        private static TableSchema table(final QuerySource source, final Table t) {
            final String name = ident(t.getName());
            TableSchema s = source.schema(name);
            if (s == null && t.getSchemaName() != null && !ident(t.getSchemaName()).equals("public")) {
                s = null;
            }
            if (s == null) {
                throw new SqlException(SqlException.UNDEFINED_TABLE, "unknown table [table=" + name + "]");
            }
            return s;
        }

        private void checkJoinCondition(final Join j) {
            final List<Column> on = new ArrayList<>();
            for (final Expression e : j.getOnExpressions()) {
                collectJoinColumns(e, on);
            }
            for (final Column c : j.getUsingColumns() == null ? List.<Column>of() : j.getUsingColumns()) {
                on.add(c);
            }
            if (on.isEmpty()) {
                return; // QuestDB joins on the symbol when no condition is given
            }
            for (final Column c : on) {
                if (!ident(c.getColumnName()).equals("sym")) {
                    throw SqlException.notSupported("ASOF JOIN on " + c + " (it joins on sym and time: ON (sym))");
                }
            }
        }

        private static void collectJoinColumns(final Expression e, final List<Column> out) {
            if (e instanceof Column c) {
                out.add(c);
            } else if (e instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> l) {
                for (final Object o : l) {
                    collectJoinColumns((Expression) o, out);
                }
            } else if (e instanceof net.sf.jsqlparser.expression.Parenthesis p) {
                collectJoinColumns(p.getExpression(), out);
            } else if (e instanceof net.sf.jsqlparser.expression.operators.relational.EqualsTo eq) {
                collectJoinColumns(eq.getLeftExpression(), out);
                collectJoinColumns(eq.getRightExpression(), out);
            } else if (e instanceof net.sf.jsqlparser.expression.operators.conditional.AndExpression and) {
                collectJoinColumns(and.getLeftExpression(), out);
                collectJoinColumns(and.getRightExpression(), out);
            } else {
                throw SqlException.notSupported("ASOF JOIN condition " + e + " (it joins on sym and time: ON (sym))");
            }
        }

        /** A column reference: the engine's name for it (a right-table column as the join names it). */
        String column(final Column c) {
            final String name = ident(c.getColumnName());
            final String q = c.getTable() == null || c.getTable().getName() == null ? null : ident(c.getTable().getName());
            if (q != null && right != null && (q.equals(rightAlias) || q.equals(right.name())) && !q.equals(leftAlias)) {
                return rightColumn(name);
            }
            if (q != null && !q.equals(leftAlias) && !q.equals(left.name())) {
                throw new SqlException(SqlException.UNDEFINED_TABLE, "missing FROM-clause entry for table \"" + q + "\"");
            }
            if (SqlCompiler.col(left, name) != null || name.equals("date")) {
                return name;
            }
            if (q == null && right != null && SqlCompiler.col(right, name) != null) {
                return rightColumn(name);
            }
            throw new SqlException(SqlException.UNDEFINED_COLUMN, "unknown column [table=" + left.name() + ", column=" + name + "]");
        }

        boolean isRight(final String engineName) {
            return rightColumns.containsValue(engineName);
        }

        private String rightColumn(final String name) {
            if (SqlCompiler.col(right, name) == null) {
                throw new SqlException(SqlException.UNDEFINED_COLUMN, "unknown column [table=" + right.name() + ", column=" + name + "]");
            }
            if (name.equals("sym")) {
                return "sym"; // the join key: equal on both sides
            }
            return rightColumns.computeIfAbsent(name, n -> SqlCompiler.col(left, n) != null || n.equals("date") ? rightAlias + "_" + n : n);
        }

        /** Every column of a table, for {@code *} and {@code t.*}. */
        List<Expression> star(final SelectItem<?> item) {
            final List<Expression> out = new ArrayList<>();
            final boolean all = item.getExpression() instanceof AllColumns && !(item.getExpression() instanceof AllTableColumns);
            final String q = item.getExpression() instanceof AllTableColumns t ? ident(t.getTable().getName()) : null;
            if (all || q.equals(leftAlias) || q.equals(left.name())) {
                for (final ColumnDef d : left.columns()) {
                    out.add(new Column(new Table(leftAlias), d.name()));
                }
            }
            if (right != null && (all || q.equals(rightAlias) || q.equals(right.name()))) {
                for (final ColumnDef d : right.columns()) {
                    if (!d.name().equals("sym") && (!all || !d.name().equals("time"))) {
                        out.add(new Column(new Table(rightAlias), d.name()));
                    }
                }
            }
            if (out.isEmpty()) {
                throw new SqlException(SqlException.UNDEFINED_TABLE, "missing FROM-clause entry for table \"" + q + "\"");
            }
            return out;
        }

        SqlPlan plan() {
            doc.put("table", left.name());
            final SqlWhere where = new SqlWhere(this);
            if (ps.getWhere() != null) {
                where.add(ps.getWhere());
            }
            if (ps.getHaving() != null) {
                throw SqlException.notSupported("HAVING");
            }
            if (ps.getWindowDefinitions() != null || ps.getQualify() != null) {
                throw SqlException.notSupported("window functions");
            }
            final SqlSelect select = new SqlSelect(this);
            final SqlPlan plan = select.build();
            where.finish(doc);
            if (right != null) {
                final Map<String, Object> asof = new LinkedHashMap<>();
                asof.put("table", right.name());
                final Map<String, Object> cols = new LinkedHashMap<>();
                rightColumns.forEach((col, name) -> cols.put(name, col));
                if (cols.isEmpty()) {
                    throw SqlException.notSupported("an ASOF JOIN that uses no column of " + right.name());
                }
                asof.put("select", cols);
                doc.put("asof", asof);
            }
            // keep the document's fields in the documented order
            final Map<String, Object> ordered = new LinkedHashMap<>();
            for (final String k : List.of("table", "dates", "where", "select", "by", "asof", "orderBy", "limit")) {
                if (doc.containsKey(k)) {
                    ordered.put(k, doc.get(k));
                }
            }
            final long limit = ordered.get("limit") instanceof Number n ? n.longValue() : 0;
            // groups (or one row of aggregates) are held by the engine before the first row goes out
            final boolean grouped = ordered.containsKey("by")
                || ordered.get("select") instanceof Map<?, ?> sel && !sel.isEmpty()
                && sel.values().stream().allMatch(v -> v instanceof Map<?, ?> m && m.size() == 1
                    && ENGINE_AGGREGATES.containsAll(m.keySet()));
            return new SqlPlan(Json.write(ordered), plan.names(), plan.projection(), plan.offset(), limit, literals.readNow(), grouped);
        }

        /** {@code LIMIT n} / {@code FETCH FIRST n ROWS} and {@code OFFSET m}: the engine keeps n + m, the sink skips m. */
        long[] limitOffset() {
            long limit = 0;
            long offset = 0;
            if (ps.getLimit() != null) {
                if (ps.getLimit().getOffset() != null) {
                    offset = count(ps.getLimit().getOffset(), "OFFSET");
                }
                if (ps.getLimit().getRowCount() != null && !ps.getLimit().isLimitAll() && !ps.getLimit().isLimitNull()) {
                    limit = count(ps.getLimit().getRowCount(), "LIMIT");
                    if (limit == 0) {
                        limit = -1;
                    }
                }
            }
            if (ps.getOffset() != null) {
                offset = count(ps.getOffset().getOffset(), "OFFSET");
            }
            if (ps.getFetch() != null) {
                limit = ps.getFetch().getExpression() == null ? 1 : count(ps.getFetch().getExpression(), "FETCH");
            }
            return new long[] {limit, offset};
        }

        private long count(final Expression e, final String what) {
            final Object v = literals.eval(e);
            if (v == SqlLiterals.UNBOUND) {
                return 0;
            }
            final long n = v instanceof Number num ? num.longValue() : SqlLiterals.parseLong(String.valueOf(v));
            if (n < 0) {
                throw new SqlException(SqlException.INVALID_PARAMETER, what + " must not be negative [" + what + "=" + n + "]");
            }
            return n;
        }

        /** ORDER BY elements, null when none. */
        List<OrderByElement> orderBy() {
            return ps.getOrderByElements();
        }

        /** {@code GROUP BY 1}: the select item it names. */
        static Integer position(final Expression e) {
            return e instanceof LongValue l ? (int) l.getValue() : null;
        }

        static boolean isFunction(final Expression e, final String... names) {
            if (!(e instanceof Function f)) {
                return false;
            }
            final String n = f.getName().toLowerCase(Locale.ROOT);
            for (final String x : names) {
                if (n.equals(x)) {
                    return true;
                }
            }
            return false;
        }
    }
}
