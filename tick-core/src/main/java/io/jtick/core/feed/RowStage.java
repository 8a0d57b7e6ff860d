package io.jtick.core.feed;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

/**
 * Rows of one update staged column by column as raw 64-bit values (doubles as their bits), then
 * encoded in one pass with a per-batch sym dictionary. Sym ids index a source-owned table of
 * pre-encoded sym bytes. Nothing is allocated per row or per batch once sized.
 */
final class RowStage {
    private final TableSchema schema;
    private final ColumnType[] types;
    private final long[][] values;
    private final int[] symIds;
    private int[] codeBySymId = new int[16];
    private int[] stampBySymId = new int[16];
    private int batch;

    RowStage(final TableSchema schema, final int capacity) {
        this.schema = schema;
        this.types = new ColumnType[schema.columnCount()];
        for (int c = 0; c < types.length; c++) {
            types[c] = schema.type(c);
        }
        this.values = new long[schema.columnCount()][capacity];
        this.symIds = new int[capacity];
    }

    int capacity() {
        return symIds.length;
    }

    void copyRow(final int row, final long time, final int symId, final long[] rowValues) {
        values[TableSchema.TIME][row] = time;
        symIds[row] = symId;
        for (int c = 2; c < types.length; c++) {
            values[c][row] = rowValues[c];
        }
    }

    /** Encodes {@code rows} staged rows as one frame; {@code syms[id]} are the sym bytes. */
    void encode(final UpdateEncoder enc, final ByteBuf buf, final int rows, final byte[][] syms, final long nowNanos) {
        batch++;
        if (syms.length > codeBySymId.length) {
            codeBySymId = new int[Math.max(syms.length, codeBySymId.length * 2)];
            stampBySymId = new int[codeBySymId.length];
        }
        int dictBytes = 0;
        for (int r = 0; r < rows; r++) {
            final int id = symIds[r];
            if (stampBySymId[id] != batch) {
                stampBySymId[id] = batch;
                dictBytes += 1 + syms[id].length;
            }
        }
        batch++;
        enc.wrap(buf, schema, rows, dictBytes);
        for (int r = 0; r < rows; r++) {
            final int id = symIds[r];
            if (stampBySymId[id] != batch) {
                stampBySymId[id] = batch;
                codeBySymId[id] = enc.addSym(syms[id]);
            }
            enc.sym(r, codeBySymId[id]);
        }
        for (int c = 0; c < types.length; c++) {
            if (c == TableSchema.SYM) {
                continue;
            }
            final long[] col = values[c];
            switch (types[c].width()) {
                case 8:
                    for (int r = 0; r < rows; r++) {
                        enc.int64(c, r, col[r]);
                    }
                    break;
                case 4:
                    for (int r = 0; r < rows; r++) {
                        enc.int32(c, r, (int) col[r]);
                    }
                    break;
                case 2:
                    for (int r = 0; r < rows; r++) {
                        enc.int16(c, r, (short) col[r]);
                    }
                    break;
                default:
                    for (int r = 0; r < rows; r++) {
                        enc.int8(c, r, (int) col[r]);
                    }
                    break;
            }
        }
        enc.feedTime(nowNanos);
        enc.finish();
    }
}
