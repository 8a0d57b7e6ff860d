package io.jtick.core.query.model;

import io.jtick.core.schema.ColumnType;

/**
 * Types of result columns: the column types of the data model plus {@code date} (the virtual
 * partition column). A result sink receives {@link #isLong() long-kind} values through
 * {@code value(long)} (timestamp as epoch ns, date as epoch day, char as its code, bool 0/1),
 * float64/float32 through {@code value(double)} and symbols as strings.
 */
public enum ValueType {
    TIMESTAMP("timestamp"),
    SYMBOL("symbol"),
    FLOAT64("float64"),
    FLOAT32("float32"),
    INT64("int64"),
    INT32("int32"),
    INT16("int16"),
    BYTE("byte"),
    BOOL("bool"),
    CHAR("char"),
    DATE("date");

    private final String typeName;

    ValueType(final String typeName) {
        this.typeName = typeName;
    }

    /** The name in results' {@code types} list and in {@code X-Jtick-Types}. */
    public String typeName() {
        return typeName;
    }

    /** True when values travel as {@code long}. */
    public boolean isLong() {
        return this != SYMBOL && this != FLOAT64 && this != FLOAT32;
    }

    /** True for float64 and float32. */
    public boolean isDouble() {
        return this == FLOAT64 || this == FLOAT32;
    }

    public static ValueType of(final ColumnType type) {
        switch (type) {
            case TIMESTAMP:
                return TIMESTAMP;
            case SYMBOL:
                return SYMBOL;
            case FLOAT64:
                return FLOAT64;
            case FLOAT32:
                return FLOAT32;
            case INT64:
                return INT64;
            case INT32:
                return INT32;
            case INT16:
                return INT16;
            case BYTE:
                return BYTE;
            case BOOL:
                return BOOL;
            case CHAR:
                return CHAR;
            default:
                throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    /** Parses {@link #typeName()}. */
    public static ValueType parse(final String name) {
        for (final ValueType t : values()) {
            if (t.typeName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown value type [type=" + name + "]");
    }
}
