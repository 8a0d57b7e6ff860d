package io.jtick.sql;

import io.jtick.core.query.model.QueryException;

/**
 * A statement jtick will not run, with the PostgreSQL SQLSTATE a client expects
 * ({@code 0A000} feature not supported, {@code 42P01} unknown table, {@code 42703} unknown column,
 * {@code 42804}/{@code 22P02} type errors, {@code 57014} cancelled, {@code 53400} over a limit,
 * {@code 42601} syntax) and a message that names the problem as the engine's do.
 */
public final class SqlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public static final String SYNTAX = "42601";
    public static final String NOT_SUPPORTED = "0A000";
    public static final String UNDEFINED_TABLE = "42P01";
    public static final String UNDEFINED_COLUMN = "42703";
    public static final String DATATYPE_MISMATCH = "42804";
    public static final String INVALID_TEXT = "22P02";
    public static final String CANCELLED = "57014";
    public static final String LIMIT_EXCEEDED = "53400";
    public static final String UNAVAILABLE = "08006";
    public static final String INTERNAL = "XX000";
    public static final String PROTOCOL = "08P01";
    public static final String AUTH = "28P01";
    public static final String INVALID_PARAMETER = "22023";
    /** {@code io_error}: a partition's store (the cold tier's bucket) failed a read; as {@code POST /api/sql}'s 503 answers it. */
    public static final String IO_ERROR = "58030";

    private final String sqlState;

    public SqlException(final String sqlState, final String message) {
        super(message, null, false, false);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }

    /** {@code 0A000}: a construct jtick does not run, named. */
    public static SqlException notSupported(final String what) {
        return new SqlException(NOT_SUPPORTED, "not supported: " + what);
    }

    /** The engine's refusal as SQL sees it: its message kept, the SQLSTATE from its kind. */
    public static SqlException of(final QueryException e) {
        final String m = e.getMessage() == null ? "" : e.getMessage();
        final String state;
        if (e.reason() == QueryException.Reason.TOO_LARGE) {
            state = LIMIT_EXCEEDED;
        } else if (e.reason() == QueryException.Reason.UNAVAILABLE) {
            state = UNAVAILABLE;
        } else if (m.startsWith("unknown table")) {
            state = UNDEFINED_TABLE;
        } else if (m.startsWith("unknown column") || m.startsWith("orderBy column is not in the result")) {
            state = UNDEFINED_COLUMN;
        } else if (m.startsWith("bad time") || m.startsWith("bad date") || m.startsWith("bad duration")) {
            state = INVALID_TEXT;
        } else if (m.startsWith("type mismatch") || m.startsWith("aggregate ") || m.contains("expected a")) {
            state = DATATYPE_MISMATCH;
        } else {
            state = NOT_SUPPORTED;
        }
        return new SqlException(state, m);
    }

    /** The HTTP status {@code POST /api/sql} answers with: 413 over a limit, 503 unavailable, 400 otherwise. */
    public int httpStatus() {
        return switch (sqlState) {
            case LIMIT_EXCEEDED -> 413;
            case UNAVAILABLE -> 503;
            case CANCELLED -> 499;
            case INTERNAL -> 500;
            default -> 400;
        };
    }
}
