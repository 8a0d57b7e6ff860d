package io.jtick.core.table;

import io.jtick.core.schema.TableSchema;

/**
 * One table's rows in one segment: today's in-memory table in the RDB, or one table of one date
 * partition on disk (the HDB), or any other column store. This is everything the query engine
 * needs; it never sees rows as objects.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Snapshot.</b> {@link #rowCount()} is fixed for the life of the object; rows appended
 *       later are not part of it. Row numbers are {@code 0..rowCount()-1}.</li>
 *   <li><b>Columns</b> are addressed by their index in {@link #schema()} (which may differ from the
 *       newest schema of the table; the engine maps by name and checks types).</li>
 *   <li><b>Reads</b> ({@link #read(int, int, int, ColumnChunk)} for a range,
 *       {@link #read(int, int[], int, int, ColumnChunk)} for listed rows) fill a {@link ColumnChunk}
 *       view. The engine asks for at most {@link #chunkRows()} rows per call, mostly in ascending
 *       row order per chunk. Reads may run concurrently on several threads, each with its own
 *       chunks: keep per-read state in the chunk (its buffers and {@link ColumnChunk#attachment}),
 *       not in the segment.</li>
 *   <li><b>Symbols.</b> The sym column holds segment-local ids {@code 0..symIdLimit()-1};
 *       {@link #symId(String)} and {@link #symName(int)} translate. Ids need not be shared with
 *       other segments (the engine maps by name), and {@code symIdLimit()} may exceed the syms
 *       actually present (an HDB-wide sym file is fine).</li>
 *   <li><b>Sym index.</b> {@link #symRows(int, RowSink)} gives the rows of one sym: one range in a
 *       sym-parted layout ({@code p#}: sorted by sym, then time), or the ascending row list of an
 *       in-memory index ({@code g#}). A sym that is absent gives nothing.</li>
 *   <li><b>Order.</b> {@link #timeSorted()}: the time column is non-decreasing over all rows (an
 *       RDB fed in time order). {@link #symParted()}: each sym's rows are contiguous and time is
 *       non-decreasing within a sym (an HDB partition). The engine binary-searches time ranges
 *       when either holds and scans otherwise; a wrong {@code true} gives wrong answers.</li>
 *   <li><b>Lifetime.</b> The engine closes every segment a {@link QuerySource} gave it when the
 *       query ends (a disk segment may unpin its partition then).</li>
 * </ul>
 */
public interface TableSegment extends AutoCloseable {
    /** Rows per read the engine asks for at most, unless the segment says otherwise. */
    int DEFAULT_CHUNK_ROWS = 16_384;

    TableSchema schema();

    /** Date of the segment, days since 1970-01-01 (an HDB partition's date; the RDB's trading day). */
    int epochDay();

    int rowCount();

    /** True when the time column is non-decreasing over all rows. */
    boolean timeSorted();

    /** True when each sym's rows are contiguous, with time non-decreasing within a sym. */
    boolean symParted();

    /** Local id of a symbol in this segment's sym column, or -1 when it has none. */
    int symId(String sym);

    /** Name of a local sym id read from this segment's sym column. */
    String symName(int symId);

    /** Exclusive upper bound of the local sym ids. */
    int symIdLimit();

    /** Hands the rows of one sym (a local id) to {@code sink}, in ascending row order; nothing when absent. */
    void symRows(int symId, RowSink sink);

    /**
     * Adds the number of rows of each local sym id to {@code counts[id]} ({@code counts} has
     * {@link #symIdLimit()} entries) and returns true, when the segment can tell them without the
     * engine walking each sym's {@link #symRows}; returns false and leaves {@code counts} alone otherwise.
     */
    default boolean symCounts(final long[] counts) {
        return false;
    }

    /** Rows {@code [from, from + length)} of a column into {@code chunk}; {@code length <= chunkRows()}. */
    void read(int column, int from, int length, ColumnChunk chunk);

    /**
     * Rows {@code rows[at..at+length)} of a column into {@code chunk}, value i being row
     * {@code rows[at + i]}. The rows come from this segment's {@link #symRows} lists or are
     * as-of join matches: usually ascending, but implementations must accept any order.
     */
    void read(int column, int[] rows, int at, int length, ColumnChunk chunk);

    /**
     * First row in {@code [from, to)} whose value of a long-kind column (timestamp, int64) is at
     * least {@code t}, the column being non-decreasing over that range (time within a sym's range,
     * or over all rows when {@link #timeSorted()}); {@code to} when none. The default binary-searches
     * through one-row {@link #read}s into {@code probe}; a disk segment probes its file directly.
     */
    default int lowerBound(final int column, final int from, final int to, final long t, final ColumnChunk probe) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            read(column, mid, 1, probe);
            if (probe.longs()[probe.offset()] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Where a batch of consecutive rows that starts at row {@code from} should end, in
     * {@code (from, to]}: the engine reads each column of the batch with one {@link #read} (and
     * never more than {@link #chunkRows()} rows). A segment whose reads within a block of its
     * columns are served in place (a decoded block, no copy) ends the batch at that block's end;
     * the default is {@code to}.
     */
    default int batchEnd(final int from, final int to) {
        return to;
    }

    /** Most rows the engine asks for per read: a decoded block's worth for disk. */
    default int chunkRows() {
        return DEFAULT_CHUNK_ROWS;
    }

    /** Called once when the query that got this segment ends. */
    @Override
    default void close() {
    }
}
