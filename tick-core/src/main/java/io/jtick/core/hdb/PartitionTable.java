package io.jtick.core.hdb;

import io.jtick.core.rdb.ColumnarTable;
import io.jtick.core.schema.TableSchema;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One table of one date partition, opened from {@code <root>/<date>/<table>/}: its metadata, sym
 * ranges and column files. Rows are sorted by sym then time; {@link #getInt} on the sym column
 * gives the partition-local sym code (index into {@link #syms()}).
 *
 * <p>Lifetime: the opener holds one reference; every reader {@link #retain()}s before use and
 * {@link #release()}s after. The files are closed (unmapped) when the last reference goes, so a
 * tiering swap never pulls a file from under a running query.
 */
public final class PartitionTable implements ColumnarTable, AutoCloseable {
    private final Path directory;
    private final TableMeta meta;
    private final SymRanges syms;
    private final ColumnFile[] columns;
    private final AtomicInteger refs = new AtomicInteger(1);

    private PartitionTable(final Path directory, final TableMeta meta, final SymRanges syms, final ColumnFile[] columns) {
        this.directory = directory;
        this.meta = meta;
        this.syms = syms;
        this.columns = columns;
    }

    /**
     * Opens a table directory, checking its metadata, sym index and every column header and index.
     *
     * @throws CorruptPartitionException naming the file at fault
     */
    public static PartitionTable open(final Path directory) throws IOException {
        final TableMeta meta = TableMeta.read(directory.resolve(TableMeta.FILE));
        final SymRanges syms = SymRanges.read(directory.resolve(SymRanges.FILE), meta.rows());
        final TableSchema schema = meta.table();
        final ColumnFile[] files = new ColumnFile[schema.columnCount()];
        try {
            for (int c = 0; c < files.length; c++) {
                files[c] = ColumnFile.open(directory.resolve(schema.column(c).name()), schema.type(c), meta.rows());
            }
        } catch (final IOException | RuntimeException e) {
            for (final ColumnFile f : files) {
                if (f != null) {
                    f.close();
                }
            }
            throw e;
        }
        return new PartitionTable(directory, meta, syms, files);
    }

    public Path directory() {
        return directory;
    }

    public LocalDate date() {
        return meta.date();
    }

    public String name() {
        return meta.table().name();
    }

    public TableMeta meta() {
        return meta;
    }

    public SymRanges syms() {
        return syms;
    }

    public ColumnFile column(final int c) {
        return columns[c];
    }

    /** Bytes on disk of all column files. */
    public long bytesOnDisk() {
        long n = 0;
        for (final ColumnFile f : columns) {
            n += f.fileBytes();
        }
        return n;
    }

    /** Adds a reader reference; false when the table is already closed. */
    public boolean retain() {
        for (;;) {
            final int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops a reference; the last one closes the files. */
    public void release() {
        if (refs.decrementAndGet() == 0) {
            for (final ColumnFile f : columns) {
                try {
                    f.close();
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** Drops the opener's reference (see the class comment). */
    @Override
    public void close() {
        release();
    }

    /** Checks every block of every column. */
    public void verify() throws CorruptPartitionException {
        for (final ColumnFile f : columns) {
            f.verify();
        }
    }

    @Override
    public TableSchema schema() {
        return meta.table();
    }

    @Override
    public int rowCount() {
        return meta.rows();
    }

    @Override
    public long getLong(final int column, final int row) {
        return columns[column].getLong(row);
    }

    @Override
    public double getDouble(final int column, final int row) {
        return columns[column].getDouble(row);
    }

    @Override
    public float getFloat(final int column, final int row) {
        return columns[column].getFloat(row);
    }

    @Override
    public int getInt(final int column, final int row) {
        return columns[column].getInt(row);
    }

    @Override
    public short getShort(final int column, final int row) {
        return columns[column].getShort(row);
    }

    @Override
    public byte getByte(final int column, final int row) {
        return columns[column].getByte(row);
    }

    @Override
    public String symbol(final int row) {
        final int code = symId(row);
        if (code < 0 || code >= syms.count()) {
            throw new UncheckedIOException(new CorruptPartitionException(columns[TableSchema.SYM].path(),
                columns[TableSchema.SYM].blockOf(row), "sym code out of range [row=" + row + ", code=" + code + "]"));
        }
        return syms.name(code);
    }

    @Override
    public void gather(final int column, final int[] rows, final int from, final int count, final MutableDirectBuffer dst) {
        if (rows == null && dst.byteArray() != null && dst.wrapAdjustment() == 0) {
            columns[column].read(from, count, dst.byteArray(), 0);
            return;
        }
        ColumnarTable.super.gather(column, rows, from, count, dst);
    }

    /** First row of {@code [lo, hi)} whose time is at least {@code t} (time is non-decreasing within a sym's range). */
    int lowerBound(final int lo, final int hi, final long t) {
        final ColumnFile time = columns[TableSchema.TIME];
        int a = lo;
        int b = hi;
        while (a < b) {
            final int mid = (a + b) >>> 1;
            if (time.getLong(mid) < t) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        return a;
    }

    @Override
    public Selection select(final Collection<String> symList, final long fromNanos, final long toNanos, final int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive [limit=" + limit + "]");
        }
        if (fromNanos > toNanos || rowCount() == 0) {
            return new Selection(new int[0], 0);
        }
        int[] out = new int[16];
        int found = 0;
        long scanned = 0;
        if (symList != null && !symList.isEmpty()) {
            final int[] codes = symList.stream().filter(s -> s != null).mapToInt(syms::code).filter(k -> k >= 0).distinct().sorted()
                .toArray();
            for (int i = 0; i < codes.length && found < limit; i++) {
                final int end = syms.to(codes[i]);
                final int start = lowerBound(syms.from(codes[i]), end, fromNanos);
                final ColumnFile time = columns[TableSchema.TIME];
                for (int r = start; r < end && found < limit; r++) {
                    scanned++;
                    if (time.getLong(r) > toNanos) {
                        break;
                    }
                    if (found == out.length) {
                        out = Arrays.copyOf(out, out.length << 1);
                    }
                    out[found++] = r;
                }
            }
            return new Selection(Arrays.copyOf(out, found), scanned);
        }
        final ColumnFile time = columns[TableSchema.TIME];
        final int chunk = time.blockRows();
        final long[] buf = new long[Math.min(chunk, rowCount())];
        for (int r = 0; r < rowCount() && found < limit; r += chunk) {
            final int n = Math.min(chunk, rowCount() - r);
            time.read(r, n, buf, 0);
            for (int i = 0; i < n && found < limit; i++) {
                final long t = buf[i];
                if (t >= fromNanos && t <= toNanos) {
                    if (found == out.length) {
                        out = Arrays.copyOf(out, out.length << 1);
                    }
                    out[found++] = r + i;
                }
            }
            scanned += n;
        }
        return new Selection(Arrays.copyOf(out, found), scanned);
    }
}
