package io.jtick.parquet;

/**
 * Pages of one column of a {@link ParquetTable} decoded for one reader, kept as the reading chunk's
 * attachment for its next, usually adjacent, read: {@code count} values from table row {@code first}.
 */
final class DecodedPages {
    ParquetTable table;
    int column = -1;
    int first;
    int count;
    /** The values: a cached page (read only) or {@link #owned}. */
    Object values;
    /** This reader's own buffer, reused for spans of several pages. */
    Object owned;
    /** The column {@link #reads} counts the reads of. */
    int readsColumn = -1;
    /** Reads of {@link #readsColumn} through this holder: past {@link ParquetTable#SCAN_READS} the reader is a scan. */
    int reads;

    boolean holds(final int column, final int from, final int to) {
        return this.column == column && from >= first && to <= first + count;
    }
}
