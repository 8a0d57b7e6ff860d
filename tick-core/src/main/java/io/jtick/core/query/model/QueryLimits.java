package io.jtick.core.query.model;

/**
 * What one query may return: at most {@code maxRows} result rows and {@code maxBytes} bytes of
 * JSON or CSV. Over either, the query fails with {@link QueryException.Reason#TOO_LARGE} (HTTP 413).
 *
 * @param maxRows  result rows allowed (group rows for aggregates)
 * @param maxBytes encoded result bytes allowed
 */
public record QueryLimits(long maxRows, long maxBytes) {
    /** One million rows, 256 MiB. */
    public static final QueryLimits DEFAULT = new QueryLimits(1_000_000, 256L << 20);

    public QueryLimits {
        if (maxRows < 1 || maxRows > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("maxRows out of range [maxRows=" + maxRows + "]");
        }
        if (maxBytes < 1024) {
            throw new IllegalArgumentException("maxBytes below 1 KiB [maxBytes=" + maxBytes + "]");
        }
    }
}
