package io.jtick.core.tp;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The only places the tickerplant re-encodes: a sym-filtered copy of an update (once per distinct
 * sym list) and the merge of a timer batch into one update. Column blocks are copied as bytes; only
 * sym codes are remapped. Single-threaded (the tickerplant's thread).
 */
final class UpdateRewriter {
    private final SymbolTable syms;
    private final UpdateDecoder src = new UpdateDecoder();
    private final UpdateEncoder enc = new UpdateEncoder();
    private boolean[] match = new boolean[256];
    private int[] remap = new int[256];
    private int[] mergedCodeOfId = new int[1024];
    private int[] mergedStamp = new int[1024];
    private int stamp;
    private int[] mergedIds = new int[256];

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

    /**
     * Merges {@code count} frames of one table laid back to back in {@code batch} (from its reader
     * index) into one update: rows concatenated in arrival order, one dictionary. The result carries
     * the last frame's sequence, the sum of update counts and the first frame's feed time.
     */
    ByteBuf merge(final ByteBuf batch, final int count, final TableSchema schema, final ByteBufAllocator alloc) {
        stamp++;
        int totalRows = 0;
        int mergedDict = 0;
        int dictBytes = 0;
        int updates = 0;
        long lastSequence = 0;
        long firstFeedTime = 0;
        int offset = batch.readerIndex();
        for (int f = 0; f < count; f++) {
            src.wrap(batch, offset);
            totalRows += src.rowCount();
            updates += src.updateCount();
            lastSequence = src.sequence();
            if (f == 0) {
                firstFeedTime = src.feedTime();
            }
            for (int c = 0; c < src.symCount(); c++) {
                final int id = syms.intern(batch, src.symOffset(c), src.symLength(c));
                ensureId(id);
                if (mergedStamp[id] != stamp) {
                    mergedStamp[id] = stamp;
                    mergedCodeOfId[id] = mergedDict;
                    if (mergedDict == mergedIds.length) {
                        mergedIds = java.util.Arrays.copyOf(mergedIds, mergedDict * 2);
                    }
                    mergedIds[mergedDict++] = id;
                    dictBytes += 1 + src.symLength(c);
                }
            }
            offset += src.frameLength();
        }
        final ByteBuf out = alloc.directBuffer(UpdateEncoder.frameLength(schema, totalRows, dictBytes));
        enc.wrap(out, schema, totalRows, dictBytes);
        enc.sequence(lastSequence).updateCount(updates).feedTime(firstFeedTime);
        offset = batch.readerIndex();
        int rowBase = 0;
        for (int f = 0; f < count; f++) {
            src.wrap(batch, offset);
            final int rows = src.rowCount();
            final int dict = src.symCount();
            if (remap.length < dict) {
                remap = new int[Math.max(dict, remap.length * 2)];
                match = new boolean[remap.length];
            }
            for (int c = 0; c < dict; c++) {
                remap[c] = mergedCodeOfId[syms.find(batch, src.symOffset(c), src.symLength(c))];
            }
            for (int col = 0; col < schema.columnCount(); col++) {
                final int w = schema.type(col).width();
                if (col == TableSchema.SYM) {
                    final int to = enc.dataOffset(col) + (rowBase << 2);
                    for (int r = 0; r < rows; r++) {
                        out.setIntLE(to + (r << 2), remap[src.symCode(r)]);
                    }
                } else {
                    out.setBytes(enc.dataOffset(col) + rowBase * w, batch, src.dataOffset(col), rows * w);
                }
            }
            rowBase += rows;
            offset += src.frameLength();
        }
        for (int c = 0; c < mergedDict; c++) {
            enc.addSym(syms.bytes(mergedIds[c]));
        }
        enc.finish();
        return out;
    }

    private void ensureId(final int id) {
        if (id >= mergedStamp.length) {
            final int n = Math.max(id + 1, mergedStamp.length * 2);
            mergedStamp = java.util.Arrays.copyOf(mergedStamp, n);
            mergedCodeOfId = java.util.Arrays.copyOf(mergedCodeOfId, n);
        }
    }

    private static void copyHeader(final UpdateEncoder enc, final UpdateDecoder src) {
        enc.sequence(src.sequence()).updateCount(src.updateCount()).tpTime(src.tpTime()).feedTime(src.feedTime()).flags(src.flags());
    }
}
