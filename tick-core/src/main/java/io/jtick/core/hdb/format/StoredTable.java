package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.TableSegment;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * One table of one date partition as the HDB holds it, whatever its files: jtick's own column
 * files ({@link PartitionTable}) or another {@link TableFormat} (Apache Parquet). Rows are sorted
 * by sym then time and each sym's rows are one range ({@link #syms()}), so the query engine, the
 * replay and the tiering job read every format through this one contract.
 *
 * <p>Lifetime: the opener holds one reference; every reader {@link #retain()}s before use and
 * {@link #release()}s after; the last release closes the files (a tier swap or a retention delete
 * never pulls a file from under a running query).
 */
public interface StoredTable extends TableSegment {
    /** Rows per heap chunk of the default {@link #copyRowsTo}. */
    int COPY_CHUNK_ROWS = 65_536;

    /** The table directory, {@code <root>/<date>/<table>}. */
    Path directory();

    LocalDate date();

    String name();

    /** The storage format and its compression as a tier rule names it: {@code jtick}, {@code parquet/zstd}, ... */
    String format();

    /** Each sym's row range (the table's {@code p#} index); sym ids are indexes into it. */
    SymRanges syms();

    /** Bytes on disk (or in the object store) of the table's data files. */
    long bytesOnDisk();

    /** One line per column: its stored encoding and sizes, as {@code GET /api/partitions} lists them. */
    List<StoredColumn> describe();

    /** Adds a reader reference; false when the table is already closed. */
    boolean retain();

    /** Drops a reference; the last one closes the files. */
    void release();

    /** Checks every stored byte against its checksum; throws naming the file at fault. */
    void verify() throws IOException;

    /**
     * Reads every stored byte once ahead of queries, checksumming it, so that the first query does not
     * pay for first touches and checksums (and, where a format keeps decoded values in a shared cache
     * with room for them, decoding); returns the bytes read. By default nothing (a format read through
     * its own caches).
     */
    default long preload() throws IOException {
        return 0;
    }

    /** True when a column is read in place (memory-mapped plain values), false when it is decoded. */
    boolean mapped(int column);

    /** Copies rows {@code [from, from + count)} of a column into a typed array ({@code ColumnType.newArray}) at {@code dstIndex}. */
    void copyRows(int column, int from, int count, Object dst, int dstIndex);

    /**
     * As {@link #copyRows} into memory at {@code address} (room for {@code count} values, native byte
     * order): a replay decodes a compressed column into its scratch with it. By default through a
     * heap chunk; jtick's column files decode straight there.
     */
    default void copyRowsTo(final int column, final int from, final int count, final long address) {
        final ColumnType type = schema().type(column);
        final Object chunk = type.newArray(Math.min(count, COPY_CHUNK_ROWS));
        final long base = UnsafeApi.arrayBaseOffset(chunk.getClass());
        for (int done = 0; done < count;) {
            final int n = Math.min(count - done, COPY_CHUNK_ROWS);
            copyRows(column, from + done, n, chunk, 0);
            UnsafeApi.copyMemory(chunk, base, null, address + (long) done * type.width(), (long) n * type.width());
            done += n;
        }
    }

    /**
     * Address of a column's row 0 when it is read in place ({@link #mapped}: row r's little-endian
     * value at + r × width, valid while the table is retained), its rows {@code [from, to)} checksummed
     * first; 0 when the column is decoded.
     */
    default long address(final int column, final int from, final int to) {
        return 0;
    }

    /** The time of one row (a replay's merge reads it row by row from a mapped column). */
    long time(int row);

    /** First row of {@code [from, to)} whose time is at least {@code t} (time is non-decreasing within a sym's range). */
    int lowerBound(int from, int to, long t);

    /** Drops the opener's reference. */
    @Override
    default void close() {
        release();
    }

    /**
     * One stored column as listed.
     *
     * @param name        column name
     * @param type        column type name
     * @param encoding    stored encoding ({@code auto/zstd:3}'s pick, {@code parquet/zstd dictionary}, ...)
     * @param rawBytes    values' bytes before encoding
     * @param bytesOnDisk encoded bytes
     */
    record StoredColumn(String name, String type, String encoding, long rawBytes, long bytesOnDisk) {
    }
}
