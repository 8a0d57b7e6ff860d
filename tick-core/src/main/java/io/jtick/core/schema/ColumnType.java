package io.jtick.core.schema;

/**
 * Column types of the data model and their wire codes and widths (bytes per value).
 * Values are little-endian on the wire and in every file.
 */
public enum ColumnType {
    TIMESTAMP(1, 8, "timestamp"),
    SYMBOL(2, 4, "symbol"),
    FLOAT64(3, 8, "float64"),
    FLOAT32(4, 4, "float32"),
    INT64(5, 8, "int64"),
    INT32(6, 4, "int32"),
    INT16(7, 2, "int16"),
    BYTE(8, 1, "byte"),
    BOOL(9, 1, "bool"),
    CHAR(10, 1, "char");

    private static final ColumnType[] BY_CODE = new ColumnType[16];

    static {
        for (final ColumnType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int width;
    private final String typeName;

    ColumnType(final int code, final int width, final String typeName) {
        this.code = code;
        this.width = width;
        this.typeName = typeName;
    }

    /** Wire code of this type. */
    public int code() {
        return code;
    }

    /** Bytes per value. */
    public int width() {
        return width;
    }

    /** Name used in configuration and in schema strings. */
    public String typeName() {
        return typeName;
    }

    /**
     * A new primitive array of {@code capacity} values for this type: {@code long[]} timestamp and
     * int64, {@code int[]} symbol (ids) and int32, {@code double[]}, {@code float[]}, {@code short[]},
     * {@code byte[]} for byte, bool and char. Every column store of jtick holds columns this way.
     */
    public Object newArray(final int capacity) {
        return switch (this) {
            case TIMESTAMP, INT64 -> new long[capacity];
            case FLOAT64 -> new double[capacity];
            case SYMBOL, INT32 -> new int[capacity];
            case FLOAT32 -> new float[capacity];
            case INT16 -> new short[capacity];
            case BYTE, BOOL, CHAR -> new byte[capacity];
            default -> throw new IllegalStateException("unhandled column type [type=" + this + "]");
        };
    }

    /** True for types whose values are numbers an aggregate may use. */
    public boolean isNumeric() {
        return this != SYMBOL && this != BOOL && this != CHAR;
    }

    /** @return the type for a wire code, or {@code null} when the code is unknown. */
    public static ColumnType fromCode(final int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Parses a configuration name ({@code float64}, also the aliases {@code float}, {@code long}, {@code int}...). */
    public static ColumnType parse(final String name) {
        final String n = name.trim().toLowerCase(java.util.Locale.ROOT);
        switch (n) {
            case "timestamp":
                return TIMESTAMP;
            case "symbol":
            case "sym":
                return SYMBOL;
            case "float64":
            case "double":
            case "float":
                return FLOAT64;
            case "float32":
            case "real":
                return FLOAT32;
            case "int64":
            case "long":
                return INT64;
            case "int32":
            case "int":
                return INT32;
            case "int16":
            case "short":
                return INT16;
            case "byte":
                return BYTE;
            case "bool":
            case "boolean":
                return BOOL;
            case "char":
                return CHAR;
            default:
                throw new IllegalArgumentException("unknown column type [type=" + name + "]");
        }
    }
}
