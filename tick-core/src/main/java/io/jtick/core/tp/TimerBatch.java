package io.jtick.core.tp;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;

/**
 * The updates of one table waiting for the next timer tick, merged as they arrive, as kdb+'s
 * {@code .u.upd} inserts into the TP's table in the timer modes: each column's values appended to
 * that column's buffer and the sym codes mapped into one batch dictionary at {@link #add}, so the
 * timer only copies whole columns into the frame it publishes ({@link #merged}). In timer
 * log+publish mode the frames are kept back to back too, for the journal at the timer. Per frame: its
 * journal sequence, where it came from (so a frame the journal refuses can be refused to its sender)
 * and the numbered feed whose number it carries. Buffers grow as needed and are reused across ticks.
 * Tickerplant thread only.
 */
final class TimerBatch {
    private final ByteBufAllocator alloc;
    private final TableSchema schema;
    private final SymbolTable syms;
    private final UpdateDecoder src = new UpdateDecoder();
    private ByteBuf frames;
    /** Per column, the values of every row so far; the sym column holds batch dictionary codes. */
    private final ByteBuf[] columns;
    /** The batch dictionary as it goes on the wire: length byte, then the sym's bytes, per entry. */
    private ByteBuf dictionary;
    /** The last merged update; written again by the next tick unless a subscriber still holds it. */
    private ByteBuf out;
    private int[] batchCodeOfId = new int[1024];
    private int[] stampOfId = new int[1024];
    private int stamp = 1;
    private int[] remap = new int[256];
    private Tickerplant.UpdateSource[] sources = new Tickerplant.UpdateSource[64];
    private FeedRegistry.Feed[] feeds = new FeedRegistry.Feed[64];
    /** Per frame k: its journal sequence, and the rows, dictionary entries and bytes and update count of frames 0..k. */
    private long[] sequence = new long[64];
    private int[] rowsThrough = new int[64];
    private int[] dictThrough = new int[64];
    private int[] dictBytesThrough = new int[64];
    private int[] updatesThrough = new int[64];
    private long firstFeedTime;
    private int count;

    TimerBatch(final ByteBufAllocator alloc, final TableSchema schema, final SymbolTable syms) {
        this.alloc = alloc;
        this.schema = schema;
        this.syms = syms;
        this.columns = new ByteBuf[schema.columnCount()];
    }

    /**
     * Adds a validated frame of this batch's table, merged into the batch's columns. {@code feed} is the
     * numbered feed that sent it (its number is in the frame's sequence field), or null. A frame to be
     * journalled at the timer ({@code journalLater}: timer log+publish) is also copied for
     * {@link #frames}, and its sequence is set by {@link #journalled}; otherwise the frame's sequence
     * field already holds its journal sequence.
     */
    void add(final Tickerplant.UpdateSource source, final FeedRegistry.Feed feed, final ByteBuf frame, final int offset,
             final int length, final boolean journalLater) {
        if (dictionary == null) {
            allocate();
        }
        if (count == sources.length) {
            grow();
        }
        if (journalLater) {
            if (frames == null) {
                frames = alloc.directBuffer(Math.max(64 * 1024, length));
            }
            frames.writeBytes(frame, offset, length);
        }
        sequence[count] = frame.getLongLE(offset + SEQUENCE_OFFSET);
        src.wrap(frame, offset);
        final int rows = src.rowCount();
        final int dict = src.symCount();
        if (remap.length < dict) {
            remap = new int[Math.max(dict, remap.length * 2)];
        }
        int dictCount = count == 0 ? 0 : dictThrough[count - 1];
        for (int c = 0; c < dict; c++) {
            final int id = syms.intern(frame, src.symOffset(c), src.symLength(c));
            if (id >= stampOfId.length) {
                final int n = Math.max(id + 1, stampOfId.length * 2);
                stampOfId = java.util.Arrays.copyOf(stampOfId, n);
                batchCodeOfId = java.util.Arrays.copyOf(batchCodeOfId, n);
            }
            if (stampOfId[id] != stamp) {
                stampOfId[id] = stamp;
                batchCodeOfId[id] = dictCount++;
                dictionary.writeByte(src.symLength(c));
                dictionary.writeBytes(frame, src.symOffset(c), src.symLength(c));
            }
            remap[c] = batchCodeOfId[id];
        }
        for (int col = 0; col < columns.length; col++) {
            final ByteBuf to = columns[col];
            if (col == TableSchema.SYM) {
                to.ensureWritable(rows << 2);
                for (int r = 0; r < rows; r++) {
                    to.writeIntLE(remap[src.symCode(r)]);
                }
            } else {
                to.writeBytes(frame, src.dataOffset(col), rows * schema.type(col).width());
            }
        }
        if (count == 0) {
            firstFeedTime = src.feedTime();
        }
        rowsThrough[count] = (count == 0 ? 0 : rowsThrough[count - 1]) + rows;
        updatesThrough[count] = (count == 0 ? 0 : updatesThrough[count - 1]) + src.updateCount();
        dictThrough[count] = dictCount;
        dictBytesThrough[count] = dictionary.writerIndex();
        feeds[count] = feed;
        sources[count++] = source;
    }

    int count() {
        return count;
    }

    /** The frames added with {@code journalLater}, from the reader index, each starting with its int32 length. */
    ByteBuf frames() {
        return frames;
    }

    /** Frame {@code k} was journalled as {@code journalSequence}. */
    void journalled(final int k, final long journalSequence) {
        sequence[k] = journalSequence;
    }

    Tickerplant.UpdateSource source(final int k) {
        return sources[k];
    }

    FeedRegistry.Feed feed(final int k) {
        return feeds[k];
    }

    /**
     * The first {@code n} frames as one update: their rows in arrival order, one dictionary (the first
     * frames' entries come first, so {@code n} below {@link #count} drops only entries no kept row
     * uses), the sum of their update counts, frame n-1's sequence (as journalled) and frame 0's feed
     * time. Whole columns are copied; nothing is decoded again. The buffer belongs to the batch
     * (retain what is kept past the next {@link #add}); it is reused tick after tick while no
     * subscriber's outbound queue still holds it, as a fresh allocation costs more than the copy
     * when the timer wakes a cold thread.
     */
    ByteBuf merged(final int n, final UpdateEncoder enc) {
        final int rows = rowsThrough[n - 1];
        final int dictBytes = dictBytesThrough[n - 1];
        if (out != null && out.refCnt() > 1) {
            out.release();
            out = null;
        }
        if (out == null) {
            out = alloc.directBuffer(UpdateEncoder.frameLength(schema, rows, dictBytes));
        }
        enc.wrapForFill(out.clear(), schema, rows, dictBytes);
        enc.sequence(sequence[n - 1]).updateCount(updatesThrough[n - 1]).feedTime(firstFeedTime);
        for (int col = 0; col < columns.length; col++) {
            out.setBytes(enc.dataOffset(col), columns[col], 0, rows * schema.type(col).width());
        }
        enc.addDictionary(dictionary, 0, dictBytes, dictThrough[n - 1]);
        enc.finish();
        return out;
    }

    /** Empties the batch, keeping its buffers for the next tick. */
    void clear() {
        if (frames != null) {
            frames.clear();
        }
        if (dictionary != null) {
            dictionary.clear();
            for (final ByteBuf c : columns) {
                c.clear();
            }
        }
        java.util.Arrays.fill(sources, 0, count, null);
        java.util.Arrays.fill(feeds, 0, count, null);
        count = 0;
        if (++stamp == 0) {
            java.util.Arrays.fill(stampOfId, 0);
            stamp = 1;
        }
    }

    void release() {
        clear();
        if (frames != null) {
            frames.release();
            frames = null;
        }
        if (dictionary != null) {
            dictionary.release();
            for (int col = 0; col < columns.length; col++) {
                columns[col].release();
                columns[col] = null;
            }
            dictionary = null;
        }
        if (out != null) {
            out.release();
            out = null;
        }
    }

    private void allocate() {
        dictionary = alloc.directBuffer(4 * 1024);
        for (int col = 0; col < columns.length; col++) {
            columns[col] = alloc.directBuffer(1024 * schema.type(col).width());
        }
    }

    private void grow() {
        final int n = count * 2;
        sources = java.util.Arrays.copyOf(sources, n);
        feeds = java.util.Arrays.copyOf(feeds, n);
        sequence = java.util.Arrays.copyOf(sequence, n);
        rowsThrough = java.util.Arrays.copyOf(rowsThrough, n);
        dictThrough = java.util.Arrays.copyOf(dictThrough, n);
        dictBytesThrough = java.util.Arrays.copyOf(dictBytesThrough, n);
        updatesThrough = java.util.Arrays.copyOf(updatesThrough, n);
    }
}
