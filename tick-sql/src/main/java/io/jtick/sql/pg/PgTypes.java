package io.jtick.sql.pg;

import io.jtick.core.query.model.ValueType;

/**
 * How jtick's value types travel over PostgreSQL's protocol: their type OIDs, sizes and the text
 * and binary forms ({@code timestamp} as {@code timestamptz}, symbol as {@code varchar}, char as
 * {@code bpchar(1)}, byte as {@code int2}, date as {@code date}).
 */
final class PgTypes {
    static final int BOOL = 16;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int OID = 26;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int BPCHAR = 1042;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int NUMERIC = 1700;
    /** 2000-01-01 (PostgreSQL's epoch) in Unix epoch days. */
    static final long PG_EPOCH_DAY = 10_957L;
    static final long PG_EPOCH_MICROS = PG_EPOCH_DAY * 86_400_000_000L;

    private PgTypes() {
    }

    static int oid(final ValueType t) {
        return switch (t) {
            case TIMESTAMP -> TIMESTAMPTZ;
            case SYMBOL -> VARCHAR;
            case FLOAT64 -> FLOAT8;
            case FLOAT32 -> FLOAT4;
            case INT64 -> INT8;
            case INT32 -> INT4;
            case INT16, BYTE -> INT2;
            case BOOL -> BOOL;
            case CHAR -> BPCHAR;
            case DATE -> DATE;
        };
    }

    /** typlen of RowDescription: -1 for variable-length types. */
    static short size(final ValueType t) {
        return switch (t) {
            case TIMESTAMP, FLOAT64, INT64 -> 8;
            case FLOAT32, INT32, DATE -> 4;
            case INT16, BYTE -> 2;
            case BOOL -> 1;
            case SYMBOL, CHAR -> -1;
        };
    }

    /** typmod of RowDescription: bpchar(1) for char, else none. */
    static int modifier(final ValueType t) {
        return t == ValueType.CHAR ? 5 : -1;
    }

    /** PostgreSQL's name of the type, for the catalog ({@code format_type}). */
    static String name(final ValueType t) {
        return switch (t) {
            case TIMESTAMP -> "timestamp with time zone";
            case SYMBOL -> "character varying";
            case FLOAT64 -> "double precision";
            case FLOAT32 -> "real";
            case INT64 -> "bigint";
            case INT32 -> "integer";
            case INT16, BYTE -> "smallint";
            case BOOL -> "boolean";
            case CHAR -> "character(1)";
            case DATE -> "date";
        };
    }
}
