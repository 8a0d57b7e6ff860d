package io.jtick.core.kdb;

import io.jtick.core.schema.ColumnType;

/**
 * kdb+ type codes (a vector's code is positive, an atom's negative) with their value widths and q
 * names, and the kdb+ type each jtick column type is written as.
 */
public final class KdbType {
    public static final int LIST = 0;
    public static final int BOOLEAN = 1;
    public static final int GUID = 2;
    public static final int BYTE = 4;
    public static final int SHORT = 5;
    public static final int INT = 6;
    public static final int LONG = 7;
    public static final int REAL = 8;
    public static final int FLOAT = 9;
    public static final int CHAR = 10;
    public static final int SYMBOL = 11;
    public static final int TIMESTAMP = 12;
    public static final int MONTH = 13;
    public static final int DATE = 14;
    public static final int DATETIME = 15;
    public static final int TIMESPAN = 16;
    public static final int MINUTE = 17;
    public static final int SECOND = 18;
    public static final int TIME = 19;
    public static final int TABLE = 98;
    public static final int DICT = 99;
    /** The generic null {@code ::} is a unary primitive (101) holding 0. */
    public static final int UNARY_PRIMITIVE = 101;
    public static final int ERROR = -128;

    private static final int[] WIDTH = {0, 1, 16, 0, 1, 2, 4, 8, 4, 8, 1, 0, 8, 4, 4, 8, 8, 4, 4, 4};
    private static final String[] NAME = {"list", "boolean", "guid", "", "byte", "short", "int", "long", "real", "float",
        "char", "symbol", "timestamp", "month", "date", "datetime", "timespan", "minute", "second", "time"};

    private KdbType() {
    }

    /** Bytes per value of vector type {@code type} (its atom is {@code -type}); 0 for symbols, lists and the rest. */
    public static int width(final int type) {
        final int t = Math.abs(type);
        return t < WIDTH.length ? WIDTH[t] : 0;
    }

    /** q's name of a type ({@code float}, {@code long}...), atoms and vectors alike. */
    public static String name(final int type) {
        final int t = Math.abs(type);
        if (t < NAME.length && !NAME[t].isEmpty()) {
            return NAME[t];
        }
        return switch (t) {
            case TABLE -> "table";
            case DICT -> "dictionary";
            case 128 -> "error";
            default -> t >= 100 && t <= 112 ? "function" : t >= 20 && t <= 76 ? "enumeration" : "type " + type;
        };
    }

    /**
     * The vector type a jtick column is written as to kdb+: a timestamp is a timestamp, except the
     * {@code time} column of a table whose schema declares it a time of day (kdb-tick's {@code sym.q}),
     * which is a timespan.
     */
    public static int of(final ColumnType type, final boolean timeOfDay) {
        return switch (type) {
            case TIMESTAMP -> timeOfDay ? TIMESPAN : TIMESTAMP;
            case SYMBOL -> SYMBOL;
            case FLOAT64 -> FLOAT;
            case FLOAT32 -> REAL;
            case INT64 -> LONG;
            case INT32 -> INT;
            case INT16 -> SHORT;
            case BYTE -> BYTE;
            case BOOL -> BOOLEAN;
            case CHAR -> CHAR;
        };
    }
}
