package io.jtick.core.table;

import io.jtick.core.schema.TableSchema;

import java.util.List;

/**
 * Where the engine finds tables: the RDB (one segment per table, today), the HDB (one per date
 * partition), or a gateway that combines both. Date pruning happens here: return only segments
 * whose {@link TableSegment#epochDay()} is within {@code [fromDay, toDay]}; the engine drops any
 * other. Several segments of one date are allowed (they are queried in list order).
 */
public interface QuerySource {
    /** Widest day range, meaning "all dates". */
    int ALL_DAYS_FROM = Integer.MIN_VALUE;
    int ALL_DAYS_TO = Integer.MAX_VALUE;

    /** The current schema of a table, or null when the source has no such table. */
    TableSchema schema(String table);

    /**
     * Segments of a table for days {@code fromDay..toDay} (epoch days, inclusive), oldest date
     * first. The caller closes each one.
     *
     * @param hint the columns and conditions the query will use (see {@link ScanHint})
     */
    List<TableSegment> segments(String table, int fromDay, int toDay, ScanHint hint);
}
