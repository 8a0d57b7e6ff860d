package io.jtick.core.rdb;

import java.util.List;

/**
 * A select over one RDB table: {@code select[limit] columns from table where sym in syms,
 * time within (fromNanos; toNanos)}.
 *
 * @param table     table name
 * @param syms      symbols to keep; null or empty for all
 * @param fromNanos first time kept (epoch ns, inclusive); null for no lower bound
 * @param toNanos   last time kept (epoch ns, inclusive); null for no upper bound
 * @param columns   columns in the order wanted; null or empty for all
 * @param limit     at most this many rows, the first in arrival order; 1..{@link #MAX_LIMIT}
 */
public record QueryRequest(String table, List<String> syms, Long fromNanos, Long toNanos, List<String> columns, int limit) {
    /** The largest limit a query may ask for. */
    public static final int MAX_LIMIT = 100_000;

    public QueryRequest {
        if (table == null || table.isBlank()) {
            throw new IllegalArgumentException("table is required");
        }
        if (limit <= 0 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit out of range [limit=" + limit + ", max=" + MAX_LIMIT + "]");
        }
        if (fromNanos != null && toNanos != null && fromNanos > toNanos) {
            throw new IllegalArgumentException("from is after to [from=" + fromNanos + ", to=" + toNanos + "]");
        }
        syms = copy("syms", syms);
        columns = copy("columns", columns);
    }

    private static List<String> copy(final String what, final List<String> names) {
        if (names == null) {
            return List.of();
        }
        for (final String n : names) {
            if (n == null || n.isEmpty()) {
                throw new IllegalArgumentException(what + " must not contain null or empty names");
            }
        }
        return List.copyOf(names);
    }
}
