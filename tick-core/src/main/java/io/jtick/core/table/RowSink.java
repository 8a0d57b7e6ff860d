package io.jtick.core.table;

/**
 * Receives the rows of one symbol from {@link TableSegment#symRows}: as ranges (a sym-parted
 * segment: one range) or as slices of an ascending row list (an in-memory sym index). Calls come
 * in ascending row order and do not overlap. The engine keeps a reference to a row list only for
 * the duration of the query and never writes to it.
 */
public interface RowSink {
    /** Rows {@code [from, to)}. */
    void range(int from, int to);

    /** Rows {@code rows[from..to)}, ascending. */
    void rows(int[] rows, int from, int to);
}
