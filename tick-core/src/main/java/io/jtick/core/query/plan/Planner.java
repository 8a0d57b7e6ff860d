package io.jtick.core.query.plan;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.Query.Agg;
import io.jtick.core.query.model.Query.AggKind;
import io.jtick.core.query.model.Query.Arith;
import io.jtick.core.query.model.Query.Col;
import io.jtick.core.query.model.Query.Cond;
import io.jtick.core.query.model.Query.Item;
import io.jtick.core.query.model.Query.Node;
import io.jtick.core.query.model.Query.Num;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.model.Query.XBar;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan.AggSpec;
import io.jtick.core.query.plan.Plan.ArithSpec;
import io.jtick.core.query.plan.Plan.ColSpec;
import io.jtick.core.query.plan.Plan.DateSpec;
import io.jtick.core.query.plan.Plan.ExprSpec;
import io.jtick.core.query.plan.Plan.KeySpec;
import io.jtick.core.query.plan.Plan.NumSpec;
import io.jtick.core.query.plan.Plan.PredSpec;
import io.jtick.core.query.plan.Plan.XbarSpec;
import io.jtick.core.schema.TableSchema;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Binds a {@link Query} to its tables' schemas: every error about columns and types is raised here. */
public final class Planner {
    private final Query q;
    private final TableSchema schema;
    private final TableSchema right;
    private final int[] rightColumns;
    private final List<String> rightNames;
    private final boolean[] leftUsed;
    private final int dateSlot;

    private Planner(final Query q, final TableSchema schema, final TableSchema right) {
        this.q = q;
        this.schema = schema;
        this.right = right;
        this.leftUsed = new boolean[schema.columnCount()];
        leftUsed[TableSchema.TIME] = true;
        leftUsed[TableSchema.SYM] = true;
        if (right == null) {
            rightColumns = new int[0];
            rightNames = List.of();
        } else {
            final Query.AsOf a = q.asof();
            final List<String> cols = new ArrayList<>(a.columns());
            final List<String> names = new ArrayList<>(a.names());
            if (cols.isEmpty()) {
                for (int c = 2; c < right.columnCount(); c++) {
                    cols.add(right.column(c).name());
                    names.add(right.column(c).name());
                }
            }
            rightColumns = new int[cols.size()];
            for (int j = 0; j < cols.size(); j++) {
                final int c = right.indexOf(cols.get(j));
                if (c < 0) {
                    throw QueryException.bad("unknown column [table=" + right.name() + ", column=" + cols.get(j) + "]");
                }
                if (c == TableSchema.SYM) {
                    throw QueryException.bad("asof adds the sym of the left table already; do not select it [table=" + right.name() + "]");
                }
                if (schema.indexOf(names.get(j)) >= 0 || names.indexOf(names.get(j)) != j) {
                    throw QueryException.bad("asof column collides with another column [column=" + names.get(j)
                        + "]: rename it, like \"select\":{\"q" + names.get(j) + "\":\"" + cols.get(j) + "\"}");
                }
                rightColumns[j] = c;
            }
            rightNames = names;
        }
        this.dateSlot = schema.columnCount() + rightColumns.length;
    }

    /**
     * @param schema the table's schema (null: unknown table)
     * @param right  the as-of table's schema when the query has one (null: unknown table)
     */
    public static Plan plan(final Query q, final TableSchema schema, final TableSchema right) {
        if (schema == null) {
            throw QueryException.bad("unknown table [table=" + q.table() + "]");
        }
        if (q.asof() != null && right == null) {
            throw QueryException.bad("unknown table [table=" + q.asof().table() + "]");
        }
        return new Planner(q, schema, q.asof() == null ? null : right).build();
    }

    private Plan build() {
        // where
        List<String> symIn = null;
        final List<String> symNot = new ArrayList<>();
        final List<Literals.TimeLit> lower = new ArrayList<>();
        final List<Literals.TimeLit> upper = new ArrayList<>();
        final List<PredSpec> preds = new ArrayList<>();
        for (final Cond c : q.where()) {
            final int col = schema.indexOf(c.column());
            if (col < 0) {
                if (rightNames.contains(c.column())) {
                    throw QueryException.bad("where applies to " + schema.name() + "; as-of columns cannot be filtered [column="
                        + c.column() + "]");
                }
                if ("date".equals(c.column())) {
                    throw QueryException.bad("select dates with the dates field, like \"dates\":{\"from\":\"2026-11-20\","
                        + "\"to\":\"2026-11-21\"}");
                }
                throw unknownColumn(c.column());
            }
            leftUsed[col] = true;
            final ValueType type = ValueType.of(schema.type(col));
            if (type == ValueType.SYMBOL) {
                final List<String> names = new ArrayList<>();
                for (final Object v : c.values()) {
                    if (!(v instanceof String s)) {
                        throw mismatch(c.column(), type, v, "a symbol name");
                    }
                    names.add(s);
                }
                switch (c.op()) {
                    case EQ:
                    case IN:
                        if (symIn == null) {
                            symIn = new ArrayList<>(new LinkedHashSet<>(names));
                        } else {
                            symIn.retainAll(Set.copyOf(names));
                        }
                        break;
                    case NE:
                        symNot.addAll(names);
                        break;
                    default:
                        throw QueryException.bad("operator " + c.op().symbol() + " not supported on symbol column [column=" + c.column()
                            + "]: use =, != or in");
                }
                continue;
            }
            final List<Object> values = new ArrayList<>();
            for (final Object v : c.values()) {
                values.add(bindLiteral(c.column(), type, v));
            }
            if (col == TableSchema.TIME && c.op() != Op.NE && c.op() != Op.IN) {
                timeBounds(c.op(), values, lower, upper);
                continue;
            }
            preds.add(new PredSpec(col, type, c.op(), values));
        }

        // select / by
        final List<Item> select = q.select();
        boolean grouped = !q.by().isEmpty();
        for (final Item i : select) {
            grouped |= i.expr() instanceof Agg;
        }
        final List<String> outNames = new ArrayList<>();
        final List<ValueType> outTypes = new ArrayList<>();
        final List<KeySpec> keys = new ArrayList<>();
        final List<AggSpec> aggs = new ArrayList<>();
        final List<ExprSpec> rowOutputs = new ArrayList<>();
        if (grouped) {
            for (final Item k : q.by()) {
                final ExprSpec e = expr(k.expr(), false);
                if (e instanceof NumSpec) {
                    throw QueryException.bad("by needs a column [by=" + k.name() + "]");
                }
                final boolean sym = e instanceof ColSpec cs && cs.slot() == TableSchema.SYM;
                keys.add(new KeySpec(k.name(), e, sym));
                outNames.add(k.name());
                outTypes.add(e.type());
            }
            final List<Item> items = new ArrayList<>(select);
            if (items.isEmpty()) {
                // kdb: select by k from t → the last row of each group
                for (int c = 0; c < schema.columnCount(); c++) {
                    final String n = schema.column(c).name();
                    if (!outNames.contains(n)) {
                        items.add(new Item(n, new Agg(AggKind.LAST, List.of(new Col(n)))));
                    }
                }
                for (final String n : rightNames) {
                    items.add(new Item(n, new Agg(AggKind.LAST, List.of(new Col(n)))));
                }
            }
            for (final Item i : items) {
                if (!(i.expr() instanceof Agg a)) {
                    throw QueryException.bad("select item must be an aggregate when the query has by or aggregates [column="
                        + i.name() + "]: use first, last, sum... or drop by");
                }
                final AggSpec spec = agg(i.name(), a);
                aggs.add(spec);
                outNames.add(i.name());
                outTypes.add(spec.type());
            }
        } else if (select.isEmpty()) {
            for (int c = 0; c < schema.columnCount(); c++) {
                rowOutputs.add(column(schema.column(c).name()));
                outNames.add(schema.column(c).name());
                outTypes.add(ValueType.of(schema.type(c)));
            }
            for (int j = 0; j < rightColumns.length; j++) {
                final ExprSpec e = column(rightNames.get(j));
                rowOutputs.add(e);
                outNames.add(rightNames.get(j));
                outTypes.add(e.type());
            }
        } else {
            for (final Item i : select) {
                final ExprSpec e = expr(i.expr(), false);
                rowOutputs.add(e);
                outNames.add(i.name());
                outTypes.add(e.type());
            }
        }

        // orderBy
        final int[] orderColumns = new int[q.orderBy().size()];
        final boolean[] orderDesc = new boolean[orderColumns.length];
        for (int i = 0; i < orderColumns.length; i++) {
            final Query.Order o = q.orderBy().get(i);
            orderColumns[i] = outNames.indexOf(o.column());
            if (orderColumns[i] < 0) {
                throw QueryException.bad("orderBy column is not in the result [column=" + o.column() + ", result=" + outNames + "]");
            }
            orderDesc[i] = o.desc();
        }
        return new Plan(q, schema, right, rightColumns, leftUsed, symIn, List.copyOf(symNot), List.copyOf(lower),
            List.copyOf(upper), List.copyOf(preds), grouped, List.copyOf(keys), List.copyOf(aggs), List.copyOf(rowOutputs),
            List.copyOf(outNames), List.copyOf(outTypes), orderColumns, orderDesc);
    }

    private static void timeBounds(final Op op, final List<Object> values, final List<Literals.TimeLit> lower,
                                   final List<Literals.TimeLit> upper) {
        final Literals.TimeLit a = (Literals.TimeLit) values.get(0);
        switch (op) {
            case EQ:
                lower.add(a);
                upper.add(a);
                break;
            case GE:
                lower.add(a);
                break;
            case GT:
                lower.add(new Literals.TimeLit(a.nanos() + 1, a.timeOfDay()));
                break;
            case LE:
                upper.add(a);
                break;
            case LT:
                upper.add(new Literals.TimeLit(a.nanos() - 1, a.timeOfDay()));
                break;
            case WITHIN:
                lower.add(a);
                upper.add((Literals.TimeLit) values.get(1));
                break;
            default:
                throw new IllegalStateException("not a bound [op=" + op + "]");
        }
    }

    /** A literal in a condition, converted to the column's kind. */
    private static Object bindLiteral(final String column, final ValueType type, final Object v) {
        switch (type) {
            case TIMESTAMP:
                return Literals.time(v, column);
            case FLOAT64:
            case FLOAT32:
                if (v instanceof Long l) {
                    return (double) l;
                }
                if (v instanceof Double d) {
                    return d;
                }
                throw mismatch(column, type, v, "a number");
            case BOOL:
                if (v instanceof Boolean b) {
                    return b ? 1L : 0L;
                }
                if (v instanceof Long l && (l == 0 || l == 1)) {
                    return l;
                }
                throw mismatch(column, type, v, "true or false");
            case CHAR:
                if (v instanceof String s && s.length() == 1 && s.charAt(0) < 256) {
                    return (long) s.charAt(0);
                }
                throw mismatch(column, type, v, "a one-character string");
            default:
                if (v instanceof Long l) {
                    return l;
                }
                throw mismatch(column, type, v, "an integer");
        }
    }

    private static QueryException mismatch(final String column, final ValueType type, final Object v, final String expected) {
        return QueryException.bad("type mismatch [column=" + column + ", type=" + type.typeName() + ", value="
            + (v instanceof String ? "\"" + v + "\"" : v) + "]: expected " + expected);
    }

    private QueryException unknownColumn(final String name) {
        return QueryException.bad("unknown column [table=" + schema.name() + ", column=" + name + "]");
    }

    /** A column by name: left, as-of, or the virtual date. */
    private ExprSpec column(final String name) {
        final int c = schema.indexOf(name);
        if (c >= 0) {
            leftUsed[c] = true;
            return new ColSpec(c, ValueType.of(schema.type(c)), false);
        }
        final int j = rightNames.indexOf(name);
        if (j >= 0) {
            return new ColSpec(schema.columnCount() + j, ValueType.of(right.type(rightColumns[j])), true);
        }
        if ("date".equals(name)) {
            return new DateSpec();
        }
        throw unknownColumn(name);
    }

    private ExprSpec expr(final Node n, final boolean inAgg) {
        if (n instanceof Col c) {
            if ("*".equals(c.name())) {
                throw QueryException.bad("* is only for count, like {\"count\":\"*\"}");
            }
            return column(c.name());
        }
        if (n instanceof Num num) {
            return new NumSpec(num.value(), num.longValue(), num.integral());
        }
        if (n instanceof Arith a) {
            final ExprSpec l = expr(a.left(), inAgg);
            final ExprSpec r = expr(a.right(), inAgg);
            numeric(l, "arithmetic " + a.op());
            numeric(r, "arithmetic " + a.op());
            return new ArithSpec(a.op(), l, r);
        }
        if (n instanceof XBar x) {
            final ExprSpec arg = expr(x.arg(), inAgg);
            numeric(arg, "xbar");
            final ValueType t = arg.type();
            if (t == ValueType.TIMESTAMP) {
                return new XbarSpec(Literals.duration(x.size(), "xbar"), 0, arg);
            }
            if (t.isDouble()) {
                final double size = x.size() instanceof Long l ? l : x.size() instanceof Double d ? d : -1;
                if (!(size > 0)) {
                    throw QueryException.bad("xbar size must be a positive number [column=" + describe(arg) + ", size=" + x.size() + "]");
                }
                return new XbarSpec(0, size, arg);
            }
            if (!(x.size() instanceof Long l) || l <= 0) {
                throw QueryException.bad("xbar size must be a positive integer [column=" + describe(arg) + ", size=" + x.size() + "]");
            }
            return new XbarSpec(l, 0, arg);
        }
        if (n instanceof Agg a) {
            throw QueryException.bad(inAgg ? "aggregates cannot be nested [function=" + a.kind().label() + "]"
                : "aggregate " + a.kind().label() + " is only allowed at the top of a select item");
        }
        throw new IllegalStateException("unhandled node " + n);
    }

    private static String describe(final ExprSpec e) {
        return e.type().typeName();
    }

    private void numeric(final ExprSpec e, final String what) {
        final ValueType t = e.type();
        if (t == ValueType.SYMBOL || t == ValueType.CHAR || t == ValueType.BOOL || t == ValueType.DATE) {
            throw QueryException.bad(what + " on a " + t.typeName() + " column [column=" + name(e) + "]");
        }
    }

    private String name(final ExprSpec e) {
        if (e instanceof ColSpec c) {
            return c.slot() < schema.columnCount() ? schema.column(c.slot()).name() : rightNames.get(c.slot() - schema.columnCount());
        }
        if (e instanceof DateSpec) {
            return "date";
        }
        return "expression";
    }

    private AggSpec agg(final String name, final Agg a) {
        final AggKind k = a.kind();
        if (k == AggKind.COUNT) {
            if (!a.args().isEmpty()) {
                expr(a.args().get(0), true); // checks the column exists
            }
            return new AggSpec(name, k, null, null, ValueType.INT64);
        }
        final ExprSpec x = expr(a.args().get(0), true);
        switch (k) {
            case FIRST:
            case LAST:
                return new AggSpec(name, k, x, null, x.type());
            case MIN:
            case MAX:
                numericAgg(k, x);
                return new AggSpec(name, k, x, null, x.type());
            case SUM:
                numericAgg(k, x);
                return new AggSpec(name, k, x, null, x.type().isLong() ? ValueType.INT64 : ValueType.FLOAT64);
            case WAVG: {
                final ExprSpec v = expr(a.args().get(1), true);
                numericAgg(k, x);
                numericAgg(k, v);
                return new AggSpec(name, k, x, v, ValueType.FLOAT64);
            }
            default:
                numericAgg(k, x);
                return new AggSpec(name, k, x, null, ValueType.FLOAT64);
        }
    }

    private void numericAgg(final AggKind k, final ExprSpec x) {
        final ValueType t = x.type();
        if (t == ValueType.SYMBOL || t == ValueType.CHAR || t == ValueType.BOOL || t == ValueType.DATE) {
            throw QueryException.bad("aggregate " + k.label() + " on a " + t.typeName() + " column [column=" + name(x)
                + "]: only count, first and last take " + t.typeName() + "s");
        }
    }
}
