package io.jtick.core.tp;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The sym-filtered copy of an update (once per distinct sym list), the one place the tickerplant
 * re-encodes a frame ({@link TimerBatch} merges timer batches as they arrive). Column values are
 * copied as bytes; only sym codes are remapped. Single-threaded (the tickerplant's thread).
 */
final class UpdateRewriter {
    private final SymbolTable syms;
    private final UpdateDecoder src = new UpdateDecoder();
    private final UpdateEncoder enc = new UpdateEncoder();
    private boolean[] match = new boolean[256];
    private int[] remap = new int[256];

    UpdateRewriter(final SymbolTable syms) {
        this.syms = syms;
    }

    /**
     * Rows of the frame at {@code offset} whose sym is in {@code filter}: returns {@code frame} itself
     * when every row matches, null when none does, else a new buffer the caller owns.
     */
    ByteBuf filter(final ByteBuf frame, final int offset, final TableSchema schema, final SymFilter filter, final ByteBufAllocator alloc) {
        src.wrap(frame, offset);
        final int dict = src.symCount();
        if (match.length < dict) {
            match = new boolean[Math.max(dict, match.length * 2)];
            remap = new int[match.length];
        }
        int matchedEntries = 0;
        int dictBytes = 0;
        for (int c = 0; c < dict; c++) {
            final boolean m = filter.contains(syms.find(frame, src.symOffset(c), src.symLength(c)));
            match[c] = m;
            if (m) {
                remap[c] = matchedEntries++;
                dictBytes += 1 + src.symLength(c);
            }
        }
        if (matchedEntries == 0) {
            return null;
        }
        if (matchedEntries == dict) {
            return frame;
        }
        final int rows = src.rowCount();
        int selected = 0;
        for (int r = 0; r < rows; r++) {
            if (match[src.symCode(r)]) {
                selected++;
            }
        }
        if (selected == 0) {
            return null;
        }
        if (selected == rows) {
            return frame;
        }
        final ByteBuf out = alloc.directBuffer(UpdateEncoder.frameLength(schema, selected, dictBytes));
        enc.wrap(out, schema, selected, dictBytes);
        copyHeader(enc, src);
        for (int col = 0; col < schema.columnCount(); col++) {
            final int w = schema.type(col).width();
            final int from = src.dataOffset(col);
            final int to = enc.dataOffset(col);
            int k = 0;
            for (int r = 0; r < rows; r++) {
                final int code = src.symCode(r);
                if (!match[code]) {
                    continue;
                }
                if (col == TableSchema.SYM) {
                    out.setIntLE(to + (k << 2), remap[code]);
                } else {
                    out.setBytes(to + k * w, frame, from + r * w, w);
                }
                k++;
            }
        }
        for (int c = 0; c < dict; c++) {
            if (match[c]) {
                enc.addSym(frame, src.symOffset(c), src.symLength(c));
            }
        }
        enc.finish();
        return out;
    }

    private static void copyHeader(final UpdateEncoder enc, final UpdateDecoder src) {
        enc.sequence(src.sequence()).updateCount(src.updateCount()).tpTime(src.tpTime()).feedTime(src.feedTime()).flags(src.flags());
    }
}
