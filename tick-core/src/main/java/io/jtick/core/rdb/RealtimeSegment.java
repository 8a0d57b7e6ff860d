package io.jtick.core.rdb;

import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.schema.TableSchema;

/**
 * A {@link TableSegment} over one RDB table as published when it was taken: range reads wrap the
 * table's own column arrays (zero copy), the sym index hands out its posting lists as they are,
 * and listed rows are gathered into the chunk's buffer. Rows appended later are not seen: the
 * row count and the column arrays are read once, in the order the class comment of
 * {@link RealtimeTable} gives, when {@link RealtimeTable#segment} makes the segment.
 */
final class RealtimeSegment implements TableSegment {
    private final TableSchema schema;
    private final SymbolCatalog symbols;
    private final SymIndex index;
    private final Object[] columns;
    private final int rows;
    private final boolean timeSorted;
    private final int symLimit;
    private final int epochDay;

    RealtimeSegment(final TableSchema schema, final SymbolCatalog symbols, final SymIndex index, final Object[] columns,
                    final int rows, final boolean timeSorted, final int epochDay) {
        this.schema = schema;
        this.symbols = symbols;
        this.index = index;
        this.columns = columns;
        this.rows = rows;
        this.timeSorted = timeSorted;
        this.symLimit = symbols.size();
        this.epochDay = epochDay;
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
     * The sym's postings below the published row count. Entries past them may be rows appended
     * since, or slots whose write is not visible yet (zeros): both are trimmed from the end, and
     * a lone first entry is checked against the sym column. A list that is a run of consecutive
     * rows goes out as a range.
     */
    @Override
    public void symRows(final int symId, final RowSink sink) {
        final SymIndex.Postings p = index.postings(symId);
        if (p == null) {
            return;
        }
        final int[] list = p.rows;
        int c = Math.min(p.count, list.length);
        while (c > 0 && (list[c - 1] >= rows || c > 1 && list[c - 1] <= list[c - 2])) {
            c--;
        }
        if (c == 1 && ((int[]) columns[TableSchema.SYM])[list[0]] != symId) {
            c = 0;
        }
        if (c > 0 && list[c - 1] - list[0] == c - 1) {
            sink.range(list[0], list[c - 1] + 1); // every row of a run: a zero-copy range
        } else if (c > 0) {
            sink.rows(list, 0, c);
        }
    }

    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        if (from < 0 || length < 0 || from > rows - length) {
            throw new IndexOutOfBoundsException("rows outside segment [table=" + schema.name() + ", from=" + from + ", length=" + length
                + ", rows=" + rows + "]");
        }
        chunk.wrap(schema.type(column), columns[column], from, length);
    }

    @Override
    public void read(final int column, final int[] rowList, final int at, final int length, final ColumnChunk chunk) {
        chunk.gather(schema.type(column), columns[column], rowList, at, length);
    }
}
