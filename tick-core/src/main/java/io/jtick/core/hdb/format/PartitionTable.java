package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One table of one date partition, opened from {@code <root>/<date>/<table>/}: its metadata, sym
 * ranges and column files, read as a {@link TableSegment} (sym-parted, {@code p#}). Rows are
 * sorted by sym then time; the sym column holds the partition-local sym code (index into
 * {@link #syms()}).
 *
 * <p>Lifetime: the opener holds one reference; every reader {@link #retain()}s before use and
 * {@link #release()}s after. The files are closed (unmapped) when the last reference goes, so a
 * tiering swap never pulls a file from under a running query. A read after that throws
 * {@link IllegalStateException}.
 */
public final class PartitionTable implements StoredTable {
    /** Gather element-wise when runs of listed rows average fewer rows than this. */
    private static final int SCATTERED = 16;

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

    @Override
    public Path directory() {
        return directory;
    }

    @Override
    public LocalDate date() {
        return meta.date();
    }

    @Override
    public String name() {
        return meta.table().name();
    }

    public TableMeta meta() {
        return meta;
    }

    @Override
    public SymRanges syms() {
        return syms;
    }

    public ColumnFile column(final int c) {
        return columns[c];
    }

    /** Bytes on disk of all column files. */
    @Override
    public long bytesOnDisk() {
        long n = 0;
        for (final ColumnFile f : columns) {
            n += f.fileBytes();
        }
        return n;
    }

    /** Adds a reader reference; false when the table is already closed. */
    @Override
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
    @Override
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

    @Override
    public String format() {
        return TableFormats.JTICK;
    }

    @Override
    public List<StoredColumn> describe() {
        final List<StoredColumn> out = new ArrayList<>(columns.length);
        for (int c = 0; c < columns.length; c++) {
            final ColumnFile f = columns[c];
            out.add(new StoredColumn(schema().column(c).name(), f.type().typeName(), f.encoding().toString(), f.rawBytes(), f.fileBytes()));
        }
        return out;
    }

    @Override
    public boolean mapped(final int column) {
        return columns[column].mapped();
    }

    @Override
    public void copyRows(final int column, final int from, final int count, final Object dst, final int dstIndex) {
        columns[column].read(from, count, dst, dstIndex);
    }

    @Override
    public void copyRowsTo(final int column, final int from, final int count, final long address) {
        columns[column].readTo(from, count, address);
    }

    @Override
    public long address(final int column, final int from, final int to) {
        return columns[column].address(from, to);
    }

    @Override
    public long time(final int row) {
        return columns[TableSchema.TIME].getLong(row);
    }

    /** Checks every block of every column. */
    @Override
    public void verify() throws CorruptPartitionException {
        for (final ColumnFile f : columns) {
            f.verify();
        }
    }

    /** Reads every column's stored blocks once ({@link ColumnFile#preload}). */
    @Override
    public long preload() throws CorruptPartitionException {
        long bytes = 0;
        for (final ColumnFile f : columns) {
            bytes += f.preload();
        }
        return bytes;
    }

    @Override
    public TableSchema schema() {
        return meta.table();
    }

    @Override
    public int epochDay() {
        return (int) meta.date().toEpochDay();
    }

    @Override
    public int rowCount() {
        return meta.rows();
    }

    /** One sym (or none): the sym-then-time order is time order. */
    @Override
    public boolean timeSorted() {
        return syms.count() <= 1;
    }

    @Override
    public boolean symParted() {
        return true;
    }

    /** The partition-local sym code (index into {@link #syms()}), or -1. */
    @Override
    public int symId(final String sym) {
        return syms.code(sym);
    }

    @Override
    public String symName(final int symId) {
        return syms.name(symId);
    }

    @Override
    public int symIdLimit() {
        return syms.count();
    }

    /** A sym's rows are one range ({@code p#}). */
    @Override
    public void symRows(final int symId, final RowSink sink) {
        if (symId >= 0 && symId < syms.count()) {
            sink.range(syms.from(symId), syms.to(symId));
        }
    }

    /**
     * Rows within one block of an encoded column: the chunk wraps the decoded block without a copy,
     * the shared cache's entry for a small reader, or, once the chunk's reader scans, the chunk's own
     * {@link DecodedBlock} (its attachment, kept for the next, usually adjacent, read). Otherwise the
     * rows are copied (plain, mapped) or decoded ({@link ColumnFile#read}: whole blocks of a scan
     * straight into the chunk's buffer). A corrupt
     * block throws {@link UncheckedIOException} wrapping a {@link CorruptPartitionException} that
     * names file and block.
     */
    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        final ColumnFile f = columns[column];
        if (!f.mapped() && length > 0) {
            final DecodedBlock held = decoded(chunk);
            final int block = f.blockOf(from);
            if (from + length <= f.firstRow(block) + f.rowsIn(block) && !f.readsPart(block, length, held)) {
                if (from < 0) {
                    throw new IndexOutOfBoundsException("rows outside column [file=" + f.path() + ", from=" + from + "]");
                }
                final Object values = f.view(block, from - f.firstRow(block), length, held);
                chunk.wrap(f.type(), values, from - held.viewFirstRow, length);
                return;
            }
            final Object buf = chunk.buffer(f.type(), length);
            f.read(from, length, buf, 0, held);
            chunk.wrap(f.type(), buf, 0, length);
            return;
        }
        final Object buf = chunk.buffer(f.type(), length);
        f.read(from, length, buf, 0);
        chunk.wrap(f.type(), buf, 0, length);
    }

    /** The chunk's decoded block (its attachment), made on first use. */
    private static DecodedBlock decoded(final ColumnChunk chunk) {
        if (chunk.attachment instanceof DecodedBlock d) {
            return d;
        }
        final DecodedBlock d = new DecodedBlock();
        chunk.attachment = d;
        return d;
    }

    /**
     * Listed rows: one bulk read per run of consecutive rows when the rows come in runs (sym
     * lists), an element-wise gather when they are scattered (as-of matches).
     */
    @Override
    public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
        final ColumnFile f = columns[column];
        final Object buf = chunk.buffer(f.type(), length);
        int runs = 1;
        for (int i = 1; i < length; i++) {
            if (rows[at + i] != rows[at + i - 1] + 1) {
                runs++;
            }
        }
        final DecodedBlock held = f.mapped() ? null : decoded(chunk);
        if (runs * SCATTERED > length) {
            f.gather(rows, at, length, buf, held);
        } else {
            for (int i = 0; i < length;) {
                int n = 1;
                while (i + n < length && rows[at + i + n] == rows[at + i + n - 1] + 1) {
                    n++;
                }
                f.read(rows[at + i], n, buf, i, held);
                i += n;
            }
        }
        chunk.wrap(f.type(), buf, 0, length);
    }

    /**
     * A decoded block of the time column, at least 1024 rows: an engine read of a sym's rows
     * (which start at a block) then decodes whole blocks straight into the chunk.
     */
    @Override
    public int chunkRows() {
        return Math.max(1024, columns[TableSchema.TIME].blockRows());
    }

    /**
     * The end of the time column's block that holds {@code from} (at most {@code to}) when that
     * column is encoded: the 8-byte columns of a table in one encoding are cut into blocks alike, so
     * the batch's reads of them each lie in one decoded block and wrap it without a copy (a
     * read across two blocks copies both parts). A plain (mapped) time column: {@code to}.
     */
    @Override
    public int batchEnd(final int from, final int to) {
        final ColumnFile f = columns[TableSchema.TIME];
        if (f.mapped() || from >= to) {
            return to;
        }
        final int block = f.blockOf(from);
        return Math.min(to, f.firstRow(block) + f.rowsIn(block));
    }

    /** First row of {@code [lo, hi)} whose time is at least {@code t} (time is non-decreasing within a sym's range). */
    @Override
    public int lowerBound(final int lo, final int hi, final long t) {
        return columns[TableSchema.TIME].lowerBound(lo, hi, t);
    }

    /**
     * A plain column is searched in the map (its blocks in the range checksummed once), an encoded
     * long column in its block index, then within one decoded block ({@link ColumnFile#lowerBound}).
     */
    @Override
    public int lowerBound(final int column, final int from, final int to, final long t, final ColumnChunk probe) {
        final ColumnFile f = columns[column];
        if (f.mapped() || f.type() == ColumnType.TIMESTAMP || f.type() == ColumnType.INT64) {
            return f.lowerBound(from, to, t);
        }
        return StoredTable.super.lowerBound(column, from, to, t, probe);
    }
}
