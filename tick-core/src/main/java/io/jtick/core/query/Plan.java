package io.jtick.core.query;

import io.jtick.core.query.Query.AggKind;
import io.jtick.core.query.Query.Op;
import io.jtick.core.schema.TableSchema;

import java.util.List;

/**
 * A query bound to its table's schema: what every segment scan does, as immutable specs. Columns
 * are addressed by <em>slot</em>: slot {@code c < leftColumns} is column c of the left table's
 * schema, slot {@code leftColumns + j} is the j-th as-of column, and {@link #dateSlot} the virtual
 * {@code date} column. Runtime objects (evaluators, accumulators) are built per scan from these.
 */
final class Plan {
    /** A long-kind value meaning null (kdb's {@code 0N}): unmatched as-of columns. */
    static final long NULL_LONG = Long.MIN_VALUE;

    /** Expression specs. */
    sealed interface ExprSpec permits ColSpec, NumSpec, ArithSpec, XbarSpec, DateSpec {
        ValueType type();

        boolean nullable();
    }

    /** A column slot. */
    record ColSpec(int slot, ValueType type, boolean nullable) implements ExprSpec {
    }

    record NumSpec(double value, long longValue, boolean integral) implements ExprSpec {
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
    record ArithSpec(char op, ExprSpec left, ExprSpec right) implements ExprSpec {
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
    record XbarSpec(long longSize, double doubleSize, ExprSpec arg) implements ExprSpec {
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
    record DateSpec() implements ExprSpec {
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
    record PredSpec(int slot, ValueType type, Op op, List<Object> values) {
    }

    /** A group key. {@code symSlot}: the key is the left sym column (fast path). */
    record KeySpec(String name, ExprSpec expr, boolean symColumn) {
    }

    /** An aggregate with its inputs ({@code b} only for wavg: a = weights, b = values). */
    record AggSpec(String name, AggKind kind, ExprSpec a, ExprSpec b, ValueType type) {
    }

    final Query query;
    final TableSchema schema;
    final TableSchema rightSchema;
    /** Right schema column index of each as-of slot. */
    final int[] rightColumns;
    final int leftColumns;
    final int dateSlot;
    final int slotCount;
    /** Left schema columns the query reads (for the scan hint and binding). */
    final boolean[] leftUsed;

    /** sym in/=: names any of which may match; null when unconstrained. */
    final List<String> symIn;
    /** sym !=: names excluded. */
    final List<String> symNotIn;
    /** Bounds on the time column (inclusive after resolution); GT/LT adjusted by one ns. */
    final List<Literals.TimeLit> timeLower;
    final List<Literals.TimeLit> timeUpper;
    final List<PredSpec> preds;

    final boolean grouped;
    final List<KeySpec> keys;
    final List<AggSpec> aggs;
    /** Row queries: the output expressions. */
    final List<ExprSpec> rowOutputs;

    final List<String> outNames;
    final List<ValueType> outTypes;
    final int[] orderColumns;
    final boolean[] orderDesc;
    final long limit;
    final long tolerance;

    Plan(final Query query, final TableSchema schema, final TableSchema rightSchema, final int[] rightColumns,
         final boolean[] leftUsed, final List<String> symIn, final List<String> symNotIn, final List<Literals.TimeLit> timeLower,
         final List<Literals.TimeLit> timeUpper, final List<PredSpec> preds, final boolean grouped, final List<KeySpec> keys,
         final List<AggSpec> aggs, final List<ExprSpec> rowOutputs, final List<String> outNames, final List<ValueType> outTypes,
         final int[] orderColumns, final boolean[] orderDesc) {
        this.query = query;
        this.schema = schema;
        this.rightSchema = rightSchema;
        this.rightColumns = rightColumns;
        this.leftColumns = schema.columnCount();
        this.dateSlot = leftColumns + rightColumns.length;
        this.slotCount = dateSlot + 1;
        this.leftUsed = leftUsed;
        this.symIn = symIn;
        this.symNotIn = symNotIn;
        this.timeLower = timeLower;
        this.timeUpper = timeUpper;
        this.preds = preds;
        this.grouped = grouped;
        this.keys = keys;
        this.aggs = aggs;
        this.rowOutputs = rowOutputs;
        this.outNames = outNames;
        this.outTypes = outTypes;
        this.orderColumns = orderColumns;
        this.orderDesc = orderDesc;
        this.limit = query.limit();
        this.tolerance = query.asof() == null ? -1 : query.asof().tolerance();
    }

    boolean hasAsof() {
        return rightSchema != null;
    }

    /** True when row order matters beyond each sym's own rows (row output, or first/last not grouped by sym). */
    boolean needsRowOrder() {
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
