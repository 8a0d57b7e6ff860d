package io.jtick.core.query.model;

/**
 * A query the engine will not answer, with a message that names the problem
 * ({@code unknown column [table=trade, column=pirce]}). {@link Reason} tells a service which HTTP
 * status fits: {@link Reason#BAD_QUERY} 400, {@link Reason#TOO_LARGE} 413, {@link Reason#UNAVAILABLE} 503.
 */
public final class QueryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why the query was refused. */
    public enum Reason {
        /** The document is malformed or does not fit the tables: HTTP 400. */
        BAD_QUERY(400),
        /** The result is over the configured row or byte limit: HTTP 413. */
        TOO_LARGE(413),
        /** A source the query needs (the RDB behind a gateway) did not answer: HTTP 503. */
        UNAVAILABLE(503);

        private final int httpStatus;

        Reason(final int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    private final Reason reason;

    public QueryException(final Reason reason, final String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public static QueryException bad(final String message) {
        return new QueryException(Reason.BAD_QUERY, message);
    }

    public static QueryException tooLarge(final String message) {
        return new QueryException(Reason.TOO_LARGE, message);
    }
}
