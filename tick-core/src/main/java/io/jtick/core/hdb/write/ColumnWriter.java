package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.hdb.format.TableMeta;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.Executor;

/**
 * Writes one column of a table into its column file in partition order: the encoding its policy
 * names ({@code auto/<codec>} resolved by {@link EncodingChooser}), blocks cut by
 * {@link BlockCuts}; a plain column whose syms' rows are in arrival order is scattered by
 * {@link PlainColumnScatter}, any other column written block by block ({@link BlockFill}, the sym
 * column from the sym ranks). With direct I/O such a plain column is scattered straight into the
 * whole file built in direct memory and written behind by an I/O thread, and a plain sym column is
 * filled whole the same way from the sym ranks; any other column goes block by block. Stateless:
 * the writer threads of a write share one.
 */
final class ColumnWriter {
    /**
     * Largest plain column scattered in arrival order (or sym column filled) with direct I/O: its whole file is built in
     * one aligned buffer of direct memory (lent by the {@link WriterPool}, at most one more than
     * the writer threads, reused column after column) and written once complete (when direct
     * memory cannot hold it, the column is gathered as below). Past it, the column is gathered
     * block by block in partition order, which reads the table a value per cache line (about 1.6x
     * the CPU of the scatter, measured).
     */
    static final long WHOLE_COLUMN_BYTES = 256L << 20;

    private final EncodingPolicy policy;
    private final int blockBytes;

    ColumnWriter(final EncodingPolicy policy, final int blockBytes) {
        this.policy = policy;
        this.blockBytes = blockBytes;
    }

    /** Writes column {@code c} of {@code table} as {@code dir/<column>}, buffered, complete and closed, and returns its meta. */
    TableMeta.ColumnMeta write(final Path dir, final TableSegment table, final SortOrder order, final int c) throws IOException {
        return write(dir, table, order, c, 0, null);
    }

    /**
     * As {@link #write(Path, TableSegment, SortOrder, int)}, with direct I/O when {@code align} (the
     * file system's block size) is positive, the full buffers written on {@code pool}'s I/O threads: then the file
     * is written in order: a plain column up to {@link #WHOLE_COLUMN_BYTES} scattered in arrival
     * order into its whole value region in direct memory and left to an I/O thread to write
     * ({@link WriterPool#finishBehind}: the caller's force of the file waits for it), any other column
     * gathered block by block in partition order into the aligned buffer that goes to the device.
     */
    TableMeta.ColumnMeta write(final Path dir, final TableSegment table, final SortOrder order, final int c, final int align,
                               final WriterPool pool) throws IOException {
        final ColumnDef def = table.schema().column(c);
        final ColumnType type = def.type();
        final int rows = table.rowCount();
        final ColumnEncoding wanted = policy.encoding(table.schema().name(), def).forType(type);
        final int blockRows = BlockCuts.blockBytes(wanted, blockBytes) / type.width();
        final ColumnEncoding encoding = wanted.isAuto() ? EncodingChooser.choose(wanted, table, c, order.rows(), blockRows) : wanted;
        final Path file = dir.resolve(def.name());
        final boolean scatter = encoding.isPlain() && c != TableSchema.SYM && !order.identity() && !order.reordered();
        final boolean whole = (scatter || encoding.isPlain() && c == TableSchema.SYM) && fitsWhole(type, rows);
        final ByteBuffer lent = align > 0 && whole
            ? pool.lend(ColumnFileWriter.wholeBufferBytes(type, rows, rows / blockRows + order.ranges().count() + 2, align), align)
            : null;
        if (lent != null) {
            return writeWhole(file, def, encoding, table, order, c, blockRows, align, pool, lent);
        }
        final Executor io = align > 0 ? pool.io() : null;
        try (ColumnFileWriter w = align > 0 ? ColumnFileWriter.direct(file, type, encoding, blockRows, rows, false, align, io)
            : new ColumnFileWriter(file, type, encoding, blockRows, rows, false)) {
            if (scatter && align <= 0) {
                final long stored = PlainColumnScatter.write(w, table, c, order, blockBytes);
                return new TableMeta.ColumnMeta(def.name(), type, encoding.toString(), (long) rows * type.width(), stored);
            }
            final UnsafeBuffer block = w.block();
            final ColumnChunk chunk = new ColumnChunk();
            for (int at = 0, n; at < rows; at += n) {
                n = BlockCuts.blockEnd(order.ranges(), at, rows, blockRows) - at;
                if (c == TableSchema.SYM) {
                    order.fillSymCodes(at, n, block);
                } else {
                    BlockFill.copyRows(table, c, order.rows(), at, n, chunk, block);
                }
                w.writeBlock(n);
            }
            final long stored = w.finish();
            return new TableMeta.ColumnMeta(def.name(), type, encoding.toString(), (long) rows * type.width(), stored);
        }
    }

    /**
     * Bytes of the largest whole-column buffer ({@link #write} with direct I/O) a column of {@code table} can take, before
     * the table is sorted ({@code syms}: at least its distinct syms); 0 when no column is written whole for certain (an
     * {@code auto} encoding is chosen later). For {@link WriterPool#preallocate}.
     */
    int wholeBufferBytes(final TableSegment table, final int syms, final int align) {
        final int rows = table.rowCount();
        int most = 0;
        for (int c = 0; c < table.schema().columnCount(); c++) {
            final ColumnDef def = table.schema().column(c);
            final ColumnType type = def.type();
            final ColumnEncoding wanted = policy.encoding(table.schema().name(), def).forType(type);
            if (wanted.isPlain() && fitsWhole(type, rows)) {
                final int blockRows = BlockCuts.blockBytes(wanted, blockBytes) / type.width();
                most = Math.max(most, ColumnFileWriter.wholeBufferBytes(type, rows, rows / blockRows + syms + 2, align));
            }
        }
        return most;
    }

    /** True when a plain column of {@code rows} rows of {@code type} is small enough to be built whole ({@link #WHOLE_COLUMN_BYTES}). */
    private static boolean fitsWhole(final ColumnType type, final long rows) {
        return rows * type.width() <= WHOLE_COLUMN_BYTES;
    }

    /** True when some column of {@code table} other than sym is plain and small enough to be scattered whole ({@link #write}). */
    boolean scattersWhole(final TableSegment table) {
        for (int c = 0; c < table.schema().columnCount(); c++) {
            final ColumnDef def = table.schema().column(c);
            if (c != TableSchema.SYM && policy.encoding(table.schema().name(), def).forType(def.type()).isPlain()
                && fitsWhole(def.type(), table.rowCount())) {
                return true;
            }
        }
        return false;
    }

    /**
     * A plain column built whole in {@code lent} (scattered straight to its rows, then checksummed), whose write to the
     * device, truncation and close are left to an I/O thread ({@link WriterPool#finishBehind}) while this thread goes on to
     * its next column; the buffer goes back to the pool once written.
     */
    private TableMeta.ColumnMeta writeWhole(final Path file, final ColumnDef def, final ColumnEncoding encoding, final TableSegment table,
                                            final SortOrder order, final int c, final int blockRows, final int align,
                                            final WriterPool pool, final ByteBuffer lent) throws IOException {
        final ColumnType type = def.type();
        final long bytes = (long) table.rowCount() * type.width();
        ColumnFileWriter w = null;
        boolean handedOver = false;
        try {
            w = ColumnFileWriter.directWhole(file, type, blockRows, table.rowCount(), false, align, null, lent);
            final PlainColumnScatter.PlainBlocks blocks = PlainColumnScatter.scatterWhole(w.wholeValues(), table, c, order, blockBytes);
            final ColumnFileWriter written = w;
            pool.finishBehind(file, () -> {
                try (written) {
                    written.finishPlain(blocks.sizes(), blocks.crcs(), blocks.summaries(), blocks.count());
                } finally {
                    pool.giveBack(lent);
                }
            });
            handedOver = true;
            return new TableMeta.ColumnMeta(def.name(), type, encoding.toString(), bytes, bytes);
        } finally {
            if (!handedOver) {
                try {
                    if (w != null) {
                        w.close();
                    }
                } finally {
                    pool.giveBack(lent);
                }
            }
        }
    }
}
