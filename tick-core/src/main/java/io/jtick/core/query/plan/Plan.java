package io.jtick.core.query.plan;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.Query.AggKind;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.schema.TableSchema;

import java.util.List;

/**
 * A query bound to its table's schema: what every segment scan does, as immutable specs. Columns
 * are addressed by <em>slot</em>: slot {@code c < leftColumns} is column c of the left table's
 * schema, slot {@code leftColumns + j} is the j-th as-of column, and {@link #dateSlot} the virtual
 * {@code date} column. Runtime objects (evaluators, accumulators) are built per scan from these.
 * Arrays are shared, never written after planning.
 *
 * @param query        the parsed query
 * @param schema       the left table's schema
 * @param rightSchema  the as-of table's schema, or null without an as-of join
 * @param rightColumns right schema column index of each as-of slot
 * @param leftUsed     left schema columns the query reads (for the scan hint and binding)
 * @param symIn        sym in/=: names any of which may match; null when unconstrained
 * @param symNotIn     sym !=: names excluded
 * @param timeLower    lower bounds on the time column (inclusive after resolution; GT adjusted by one ns)
 * @param timeUpper    upper bounds on the time column (inclusive after resolution; LT adjusted by one ns)
 * @param preds        residual conditions
 * @param grouped      the query has group keys or aggregates
 * @param keys         group keys
 * @param aggs         aggregates
 * @param rowOutputs   row queries: the output expressions
 * @param outNames     result column names
 * @param outTypes     result column types
 * @param orderColumns orderBy: result columns to sort by
 * @param orderDesc    orderBy: descending, per column
 */
public record Plan(Query query, TableSchema schema, TableSchema rightSchema, int[] rightColumns, boolean[] leftUsed,
                   List<String> symIn, List<String> symNotIn, List<Literals.TimeLit> timeLower, List<Literals.TimeLit> timeUpper,
                   List<PredSpec> preds, boolean grouped, List<KeySpec> keys, List<AggSpec> aggs, List<ExprSpec> rowOutputs,
                   List<String> outNames, List<ValueType> outTypes, int[] orderColumns, boolean[] orderDesc) {
    /** A long-kind value meaning null (kdb's {@code 0N}): unmatched as-of columns. */
    public static final long NULL_LONG = Long.MIN_VALUE;

    /** Expression specs. */
    public sealed interface ExprSpec permits ColSpec, NumSpec, ArithSpec, XbarSpec, DateSpec {
        ValueType type();

        boolean nullable();
    }

    /** A column slot. */
    public record ColSpec(int slot, ValueType type, boolean nullable) implements ExprSpec {
    }

    public record NumSpec(double value, long longValue, boolean integral) implements ExprSpec {
        @Override
        public ValueType type() {
            return integral ? ValueType.INT64 : ValueType.FLOAT64;
        }

        @Override
        public boolean nullable() {
            return false;
        }
    }

    /** Arithmetic; the result is float64. */
    public record ArithSpec(char op, ExprSpec left, ExprSpec right) implements ExprSpec {
        @Override
        public ValueType type() {
            return ValueType.FLOAT64;
        }

        @Override
        public boolean nullable() {
            return left.nullable() || right.nullable();
        }
    }

    /** {@code size xbar arg}: long-kind args use {@code longSize}, float args {@code doubleSize}. */
    public record XbarSpec(long longSize, double doubleSize, ExprSpec arg) implements ExprSpec {
        @Override
        public ValueType type() {
            return arg.type();
        }

        @Override
        public boolean nullable() {
            return arg.nullable();
        }
    }

    /** The segment's date. */
    public record DateSpec() implements ExprSpec {
        @Override
        public ValueType type() {
            return ValueType.DATE;
        }

        @Override
        public boolean nullable() {
            return false;
        }
    }

    /**
     * A residual condition on a left column. Values are bound to the column's kind: {@code Long}
     * (long-kind and char/bool codes), {@code Double} (float columns), {@link Literals.TimeLit}
     * (timestamps, resolved per segment) or {@code String} (sym).
     */
    public record PredSpec(int slot, ValueType type, Op op, List<Object> values) {
    }

    /** A group key. {@code symColumn}: the key is the left sym column (fast path). */
    public record KeySpec(String name, ExprSpec expr, boolean symColumn) {
    }

    /** An aggregate with its inputs ({@code b} only for wavg: a = weights, b = values). */
    public record AggSpec(String name, AggKind kind, ExprSpec a, ExprSpec b, ValueType type) {
    }

    /** Columns of the left table: slots below this are left columns. */
    public int leftColumns() {
        return schema.columnCount();
    }

    /** The slot of the virtual {@code date} column, after the as-of columns. */
    public int dateSlot() {
        return schema.columnCount() + rightColumns.length;
    }

    public int slotCount() {
        return dateSlot() + 1;
    }

    /** At most this many result rows; 0 for no limit. */
    public long limit() {
        return query.limit();
    }

    /** As-of: match only right rows at most this many ns older; -1 for no limit. */
    public long tolerance() {
        return query.asof() == null ? -1 : query.asof().tolerance();
    }

    public boolean hasAsof() {
        return rightSchema != null;
    }

    /** True when row order matters beyond each sym's own rows (row output, or first/last not grouped by sym). */
    public boolean needsRowOrder() {
        if (!grouped) {
            return true;
        }
        boolean bySym = false;
        for (final KeySpec k : keys) {
            bySym |= k.symColumn();
        }
        if (bySym) {
            return false;
        }
        for (final AggSpec a : aggs) {
            if (a.kind() == AggKind.FIRST || a.kind() == AggKind.LAST) {
                return true;
            }
        }
        return false;
    }
}
