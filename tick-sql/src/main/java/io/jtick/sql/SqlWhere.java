package io.jtick.sql;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * WHERE to the document's {@code where} (a list of {@code {"column": {"op": value}}}, all of which
 * hold) and {@code dates} (conditions on the HDB's {@code date} column pick partitions). {@code AND}
 * of comparisons, {@code BETWEEN} (q's {@code within}), {@code IN}, and {@code OR} of equalities on
 * one column (an {@code IN}); the value side is a constant ({@link SqlLiterals}). Values are read
 * as the column's type, as PostgreSQL does with a quoted number for an integer column.
 */
final class SqlWhere {
    private final SqlCompiler.Build b;
    private final List<Object> conds = new ArrayList<>();
    private int fromDay = Integer.MIN_VALUE;
    private int toDay = Integer.MAX_VALUE;
    private List<String> daySet;

    SqlWhere(final SqlCompiler.Build b) {
        this.b = b;
    }

    void add(final Expression e) {
        if (e instanceof AndExpression and) {
            add(and.getLeftExpression());
            add(and.getRightExpression());
            return;
        }
        if (e instanceof Parenthesis p) {
            add(p.getExpression());
            return;
        }
        if (e instanceof ParenthesedExpressionList<?> l && l.size() == 1) {
            add((Expression) l.get(0));
            return;
        }
        if (e instanceof OrExpression or) {
            orAsIn(or);
            return;
        }
        if (e instanceof Between bt) {
            if (bt.isNot()) {
                throw SqlException.notSupported("NOT BETWEEN");
            }
            final String col = columnOf(bt.getLeftExpression(), e);
            final Object lo = value(col, bt.getBetweenExpressionStart());
            final Object hi = value(col, bt.getBetweenExpressionEnd());
            if (lo == SqlLiterals.UNBOUND || hi == SqlLiterals.UNBOUND) {
                return;
            }
            if (col.equals("date")) {
                fromDay = Math.max(fromDay, day(lo));
                toDay = Math.min(toDay, day(hi));
                return;
            }
            cond(col, "within", List.of(lo, hi));
            return;
        }
        if (e instanceof InExpression in0 && (in0.getRightExpression() instanceof AndExpression
            || in0.getRightExpression() instanceof OrExpression)) {
            add(reassociate(in0));
            return;
        }
        if (e instanceof InExpression in) {
            if (in.isNot()) {
                throw SqlException.notSupported("NOT IN");
            }
            final String col = columnOf(in.getLeftExpression(), e);
            if (!(in.getRightExpression() instanceof ExpressionList<?> list)) {
                throw SqlException.notSupported("IN (subquery) [" + in.getRightExpression().getClass().getSimpleName() + "]");
            }
            final List<Object> values = new ArrayList<>();
            for (final Object o : list) {
                final Object v = value(col, (Expression) o);
                if (v == SqlLiterals.UNBOUND) {
                    return;
                }
                values.add(v);
            }
            in(col, values);
            return;
        }
        if (e instanceof EqualsTo || e instanceof NotEqualsTo || e instanceof GreaterThan || e instanceof GreaterThanEquals
            || e instanceof MinorThan || e instanceof MinorThanEquals) {
            comparison((BinaryExpression) e);
            return;
        }
        throw SqlException.notSupported("condition " + e + " (WHERE takes =, <>, <, <=, >, >=, BETWEEN, IN, AND, "
            + "and OR of equalities on one column)");
    }

    /**
     * JSqlParser 5.3 reads {@code c IN ('F','I') AND x} as {@code c IN (('F','I') AND x)}: the list
     * is the leftmost operand of the AND/OR on its right; put the IN back in its place.
     */
    private static Expression reassociate(final InExpression in) {
        final BinaryExpression right = (BinaryExpression) in.getRightExpression();
        final InExpression inner = new InExpression(in.getLeftExpression(), right.getLeftExpression());
        inner.setNot(in.isNot());
        final Expression first = right.getLeftExpression() instanceof AndExpression || right.getLeftExpression() instanceof OrExpression
            ? reassociate(inner) : inner;
        return right instanceof AndExpression ? new AndExpression(first, right.getRightExpression())
            : new OrExpression(first, right.getRightExpression());
    }

    private void comparison(final BinaryExpression e) {
        String op = e instanceof EqualsTo ? "=" : e instanceof NotEqualsTo ? "!=" : e instanceof GreaterThan ? ">"
            : e instanceof GreaterThanEquals ? ">=" : e instanceof MinorThan ? "<" : "<=";
        Expression colSide = e.getLeftExpression();
        Expression valSide = e.getRightExpression();
        if (!(unwrap(colSide) instanceof Column) && unwrap(valSide) instanceof Column) {
            colSide = e.getRightExpression();
            valSide = e.getLeftExpression();
            op = switch (op) {
                case ">" -> "<";
                case ">=" -> "<=";
                case "<" -> ">";
                case "<=" -> ">=";
                default -> op;
            };
        }
        final String col = columnOf(colSide, e);
        final Object v = value(col, valSide);
        if (v == SqlLiterals.UNBOUND) {
            return;
        }
        if (col.equals("date")) {
            final int d = day(v);
            switch (op) {
                case "=" -> in(col, List.of(v));
                case ">" -> fromDay = Math.max(fromDay, d + 1);
                case ">=" -> fromDay = Math.max(fromDay, d);
                case "<" -> toDay = Math.min(toDay, d - 1);
                case "<=" -> toDay = Math.min(toDay, d);
                default -> throw SqlException.notSupported("date <> (the date column takes =, <, <=, >, >=, BETWEEN and IN)");
            }
            return;
        }
        cond(col, op, v);
    }

    private void orAsIn(final OrExpression or) {
        final List<Expression> terms = new ArrayList<>();
        flattenOr(or, terms);
        String col = null;
        final List<Object> values = new ArrayList<>();
        for (final Expression t : terms) {
            final Expression u = unwrap(t);
            final String c;
            if (u instanceof EqualsTo eq && unwrap(eq.getLeftExpression()) instanceof Column) {
                c = columnOf(eq.getLeftExpression(), or);
                values.add(value(c, eq.getRightExpression()));
            } else if (u instanceof EqualsTo eq && unwrap(eq.getRightExpression()) instanceof Column) {
                c = columnOf(eq.getRightExpression(), or);
                values.add(value(c, eq.getLeftExpression()));
            } else if (u instanceof InExpression in && !in.isNot() && in.getRightExpression() instanceof ExpressionList<?> l) {
                c = columnOf(in.getLeftExpression(), or);
                for (final Object o : l) {
                    values.add(value(c, (Expression) o));
                }
            } else {
                throw SqlException.notSupported("OR of " + t + " (OR joins equalities on one column, an IN)");
            }
            if (col != null && !col.equals(c)) {
                throw SqlException.notSupported("OR across columns [columns=" + col + "," + c + "] (OR joins equalities on one column)");
            }
            col = c;
        }
        if (values.contains(SqlLiterals.UNBOUND)) {
            return;
        }
        in(col, values);
    }

    private static void flattenOr(final Expression e, final List<Expression> out) {
        final Expression u = unwrap(e);
        if (u instanceof OrExpression o) {
            flattenOr(o.getLeftExpression(), out);
            flattenOr(o.getRightExpression(), out);
        } else {
            out.add(u);
        }
    }

    private static Expression unwrap(final Expression e) {
        Expression x = e;
        while (true) {
            if (x instanceof Parenthesis p) {
                x = p.getExpression();
            } else if (x instanceof ParenthesedExpressionList<?> l && l.size() == 1) {
                x = (Expression) l.get(0);
            } else {
                return x;
            }
        }
    }

    private void in(final String col, final List<Object> values) {
        if (col.equals("date")) {
            final List<String> days = new ArrayList<>();
            for (final Object v : values) {
                days.add(LocalDate.ofEpochDay(day(v)).toString());
            }
            daySet = daySet == null ? days : daySet.stream().filter(days::contains).toList();
            return;
        }
        cond(col, "in", values);
    }

    private void cond(final String col, final String op, final Object value) {
        final Map<String, Object> c = new LinkedHashMap<>();
        c.put(op, value);
        conds.add(Map.of(col, c));
    }

    private String columnOf(final Expression e, final Expression cond) {
        if (!(unwrap(e) instanceof Column c)) {
            throw SqlException.notSupported("condition " + cond + " (a condition compares a column with a constant)");
        }
        final String name = b.column(c);
        if (b.isRight(name)) {
            throw SqlException.notSupported("a condition on the ASOF JOIN's right table [column=" + name + "]");
        }
        return name;
    }

    /** The constant, read as the column's type. */
    private Object value(final String col, final Expression e) {
        if (!SqlLiterals.isConstant(e)) {
            throw SqlException.notSupported("comparing with " + e + " (the value side is a constant or a parameter)");
        }
        final Object v = b.literals.eval(e);
        if (v == SqlLiterals.UNBOUND) {
            return v;
        }
        if (v == null) {
            throw SqlException.notSupported("comparison with NULL (use IS NULL: not supported either)");
        }
        if (v instanceof SqlLiterals.Interval) {
            throw new SqlException(SqlException.DATATYPE_MISMATCH, "an interval where a value of " + col + " belongs");
        }
        if (col.equals("date")) {
            return v instanceof String s ? s.trim() : v;
        }
        final ColumnDef d = SqlCompiler.col(b.left, col);
        final ColumnType t = d.type();
        switch (t) {
            case TIMESTAMP:
                return v instanceof String s ? SqlLiterals.normalizeTime(s) : v;
            case INT64:
            case INT32:
            case INT16:
            case BYTE:
                if (v instanceof String s) {
                    return SqlLiterals.parseLong(s);
                }
                if (v instanceof Double x && x == Math.rint(x)) {
                    return x.longValue();
                }
                return v;
            case FLOAT64:
            case FLOAT32:
                return v instanceof String s ? SqlLiterals.parseDouble(s) : v instanceof Long l ? l.doubleValue() : v;
            case BOOL:
                if (v instanceof String s) {
                    return s.equalsIgnoreCase("t") || s.equalsIgnoreCase("true") || s.equals("1");
                }
                return v;
            default:
                return v instanceof String ? v : String.valueOf(v);
        }
    }

    private static int day(final Object v) {
        try {
            if (v instanceof Long l) {
                return (int) Math.floorDiv(l, 86_400_000_000_000L);
            }
            final String s = String.valueOf(v).trim();
            return (int) LocalDate.parse(s.length() > 10 ? s.substring(0, 10) : s.replace('.', '-')).toEpochDay();
        } catch (final java.time.DateTimeException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "bad date [date=" + v + "]: expected a date like 2026-11-21");
        }
    }

    /** Writes {@code where} and {@code dates} into the document. */
    void finish(final Map<String, Object> doc) {
        if (!conds.isEmpty()) {
            doc.put("where", conds);
        }
        if (daySet != null) {
            final List<String> kept = new ArrayList<>();
            for (final String d : daySet) {
                final int day = (int) LocalDate.parse(d).toEpochDay();
                if (day >= fromDay && day <= toDay) {
                    kept.add(d);
                }
            }
            if (kept.isEmpty()) {
                // no date can match: a range the engine knows to be empty
                doc.put("dates", Map.of("from", "1970-01-02", "to", "1970-01-01"));
            } else {
                doc.put("dates", kept);
            }
        } else if (fromDay != Integer.MIN_VALUE || toDay != Integer.MAX_VALUE) {
            final Map<String, Object> range = new LinkedHashMap<>();
            if (fromDay != Integer.MIN_VALUE) {
                range.put("from", LocalDate.ofEpochDay(fromDay).toString());
            }
            if (toDay != Integer.MAX_VALUE) {
                range.put("to", LocalDate.ofEpochDay(toDay).toString());
            }
            doc.put("dates", range);
        }
    }
}
