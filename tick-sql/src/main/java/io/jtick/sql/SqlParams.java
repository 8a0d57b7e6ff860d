package io.jtick.sql;

import java.util.List;

/**
 * The values of a statement's parameters ({@code $1}, {@code ?}), as text or as already typed
 * values; {@link #DESCRIBE} when they are not known yet (a statement described before it is bound:
 * conditions with a parameter are left out, which never changes the columns).
 */
public final class SqlParams {
    /** No values yet: compile for the result's columns only. */
    public static final SqlParams DESCRIBE = new SqlParams(null);
    public static final SqlParams NONE = new SqlParams(List.of());

    private final List<Object> values;

    private SqlParams(final List<Object> values) {
        this.values = values;
    }

    /** Values: String (text), Long, Double, Boolean or null. */
    public static SqlParams of(final List<Object> values) {
        return new SqlParams(values);
    }

    /** True when the values are not known yet. */
    public boolean describing() {
        return values == null;
    }

    /** The value of {@code $index} (1-based). */
    public Object value(final int index) {
        return get(index);
    }

    Object get(final int index) {
        if (values == null) {
            throw new IllegalStateException("describing");
        }
        if (index < 1 || index > values.size()) {
            throw new SqlException(SqlException.PROTOCOL, "no value for parameter $" + index + " [parameters=" + values.size() + "]");
        }
        return values.get(index - 1);
    }
}
