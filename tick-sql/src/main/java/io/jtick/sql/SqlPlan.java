package io.jtick.sql;

import java.util.List;

/**
 * A SELECT compiled for the engine: the query document it runs, and how the engine's result
 * columns become the statement's (SQL orders and names its columns freely, the engine answers group
 * keys first; ORDER BY may name a column the SELECT does not show; OFFSET skips rows).
 *
 * @param json       the query document ({@code docs/query.md}), what {@code POST /api/query} would take
 * @param names      the statement's column names, as PostgreSQL names them (duplicates allowed)
 * @param projection for each of the statement's columns, its index among the engine's result columns
 * @param offset     rows to skip before the first one sent
 * @param limit      the most rows the engine answers ({@code LIMIT} plus {@code OFFSET}); 0 when unbounded
 * @param readsClock true when the document depends on the statement's time ({@code now()}): it is compiled again at each run
 * @param grouped    true when the engine answers from groups it holds in memory (GROUP BY, aggregates), not
 *                   from rows streamed as they are read
 */
public record SqlPlan(String json, List<String> names, int[] projection, long offset, long limit, boolean readsClock,
                      boolean grouped) {
    /** The most rows of a row answer that still runs on a connection's I/O thread ({@link #runsInline}). */
    public static final int INLINE_ROWS = 1000;

    /**
     * True when the answer is bounded, so the query runs on the connection's I/O thread (the PostgreSQL and
     * the kdb+ query ports), as QuestDB runs every statement, with no hand-over to a worker and back: an
     * answer the engine builds in memory anyway (groups and aggregates, bounded by {@code tick.query.max-rows}),
     * or at most {@link #INLINE_ROWS} rows. A row query streams on a worker, where a slow reader paces it.
     */
    public boolean runsInline() {
        return grouped || limit > 0 && limit <= INLINE_ROWS;
    }
}
