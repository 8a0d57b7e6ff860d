package io.jtick.core.rdb;

import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.schema.TableSchema;

import java.util.Arrays;

/**
 * A {@link TableSegment} over one RDB table as published when it was taken: range reads wrap the
 * table's own column chunks (zero copy when the range lies in one chunk, see {@link ColumnStore}),
 * the sym index hands out its posting blocks as they are, and listed rows are gathered into the
 * chunk's buffer. Rows appended later are not seen: the
 * row count and the column arrays are read once, in the order the class comment of
 * {@link RealtimeTable} gives, when {@link RealtimeTable#segment} makes the segment.
 */
final class RealtimeSegment implements TableSegment {
    private final TableSchema schema;
    private final SymbolCatalog symbols;
    private final SymIndex index;
    private final SymCounts counts;
    private final Object[][] chunks;
    private final int rows;
    private final boolean timeSorted;
    private final int symLimit;
    private final int epochDay;
    /** This segment's hold on the table's chunks when the table reuses them, else null. */
    private ChunkPool.Pin pin;

    RealtimeSegment(final TableSchema schema, final SymbolCatalog symbols, final SymIndex index, final SymCounts counts,
                    final Object[][] chunks, final int rows, final boolean timeSorted, final int epochDay) {
        this.schema = schema;
        this.symbols = symbols;
        this.index = index;
        this.counts = counts;
        this.chunks = chunks;
        this.rows = rows;
        this.timeSorted = timeSorted;
        this.symLimit = symbols.size();
        this.epochDay = epochDay;
    }

    /** Called once, before the segment is handed out. */
    void holding(final ChunkPool.Pin p) {
        this.pin = p;
    }

    /** Lets go of the table's chunks (once; later calls do nothing): the segment must not be read after. */
    @Override
    public void close() {
        if (pin != null) {
            pin.release();
        }
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public int epochDay() {
        return epochDay;
    }

    @Override
    public int rowCount() {
        return rows;
    }

    @Override
    public boolean timeSorted() {
        return timeSorted;
    }

    @Override
    public boolean symParted() {
        return false;
    }

    @Override
    public int symId(final String sym) {
        final int id = symbols.find(sym);
        return id < symLimit ? id : -1;
    }

    @Override
    public String symName(final int symId) {
        return symbols.name(symId);
    }

    @Override
    public int symIdLimit() {
        return symLimit;
    }

    /**
     * The sym's rows below the segment's row count: from the sym index, brought up to that count
     * first ({@link SymIndex#catchUp}), block by block (a block's rows of the sym that are a run of
     * consecutive rows go out as a range); from a scan of the sym column when the table has no index.
     */
    @Override
    public void symRows(final int symId, final RowSink sink) {
        final Object[] sym = chunks[TableSchema.SYM];
        if (index == null) {
            scanSym(sym, symId, sink);
            return;
        }
        if (symId < 0 || symId >= symLimit) {
            return;
        }
        SymIndex.rows(index.catchUp(sym, rows, symLimit), symId, rows, sink);
    }

    /** From the table's {@link SymCounts}: its totals over whole chunks and a scan of the rest of this snapshot. */
    @Override
    public boolean symCounts(final long[] out) {
        if (counts == null) {
            return false;
        }
        counts.count(chunks[TableSchema.SYM], rows, out);
        return true;
    }

    /** A table without the index: the rows holding {@code symId}, found by a scan of the sym column, as one ascending list. */
    private void scanSym(final Object[] sym, final int symId, final RowSink sink) {
        int[] found = new int[64];
        int n = 0;
        for (int row = 0; row < rows;) {
            final int from = row & ColumnStore.MASK;
            final int to = Math.min(from + (rows - row), ColumnStore.CHUNK_ROWS);
            final int[] s = (int[]) sym[row >>> ColumnStore.SHIFT];
            final int base = row - from;
            for (int i = from; i < to; i++) {
                if (s[i] == symId) {
                    if (n == found.length) {
                        found = Arrays.copyOf(found, n << 1);
                    }
                    found[n++] = base + i;
                }
            }
            row += to - from;
        }
        if (n > 0) {
            sink.rows(found, 0, n);
        }
    }

    /** Batches end where a column chunk ends, so each read wraps one chunk in place instead of copying across two. */
    @Override
    public int batchEnd(final int from, final int to) {
        return (int) Math.min(to, ((long) (from >>> ColumnStore.SHIFT) + 1) << ColumnStore.SHIFT);
    }

    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        if (from < 0 || length < 0 || from > rows - length) {
            throw new IndexOutOfBoundsException("rows outside segment [table=" + schema.name() + ", from=" + from + ", length=" + length
                + ", rows=" + rows + "]");
        }
        ColumnStore.read(schema.type(column), chunks[column], from, length, chunk);
    }

    @Override
    public void read(final int column, final int[] rowList, final int at, final int length, final ColumnChunk chunk) {
        ColumnStore.gather(schema.type(column), chunks[column], rowList, at, length, chunk);
    }
}
