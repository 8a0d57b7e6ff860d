package io.jtick.core.query.exec;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;

/**
 * The as-of segment seen through the plan's right schema: column c of the plan's schema reads
 * the segment's column of the same name (segments of other dates may order columns differently).
 */
final class RightView implements TableSegment {
    private final TableSegment seg;
    private final TableSchema schema;
    private final int[] map;

    RightView(final TableSegment seg, final TableSchema schema, final int[] map) {
        this.seg = seg;
        this.schema = schema;
        this.map = map;
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public int epochDay() {
        return seg.epochDay();
    }

    @Override
    public int rowCount() {
        return seg.rowCount();
    }

    @Override
    public boolean timeSorted() {
        return seg.timeSorted();
    }

    @Override
    public boolean symParted() {
        return seg.symParted();
    }

    @Override
    public int symId(final String sym) {
        return seg.symId(sym);
    }

    @Override
    public String symName(final int symId) {
        return seg.symName(symId);
    }

    @Override
    public int symIdLimit() {
        return seg.symIdLimit();
    }

    @Override
    public void symRows(final int symId, final RowSink sink) {
        seg.symRows(symId, sink);
    }

    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        seg.read(map[column], from, length, chunk);
    }

    @Override
    public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
        seg.read(map[column], rows, at, length, chunk);
    }

    @Override
    public int chunkRows() {
        return seg.chunkRows();
    }
}
