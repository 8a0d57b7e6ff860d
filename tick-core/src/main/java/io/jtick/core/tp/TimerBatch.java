package io.jtick.core.tp;

import io.jtick.core.journal.FeedRuns;
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
 * timer only copies whole columns into the one update it journals (timer log+publish) and publishes
 * ({@link #merged}). Per frame: where it came from (so that a batch the journal refuses can be
 * refused to its senders), the numbered feed whose number it carries and that number, also kept
 * as runs for the merged entry's feed trailer ({@link #feedRuns}). Buffers grow as needed and are
 * reused across ticks. Tickerplant thread only.
 */
final class TimerBatch {
    private final ByteBufAllocator alloc;
    private final TableSchema schema;
    private final SymbolTable syms;
    private final UpdateDecoder src = new UpdateDecoder();
    private final FeedRuns runs = new FeedRuns();
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
    private UpdateSource[] sources = new UpdateSource[64];
    private FeedRegistry.Feed[] feeds = new FeedRegistry.Feed[64];
    /** Per frame, its sequence field as added: its journal sequence (timer publish), feed number or upstream sequence. */
    private long[] sequence = new long[64];
    private int rows;
    private int dictCount;
    private int updates;
    private long frameBytes;
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
     * numbered feed that sent it, whose number is in the frame's sequence field, or null.
     */
    void add(final UpdateSource source, final FeedRegistry.Feed feed, final ByteBuf frame, final int offset,
             final int length) {
        if (dictionary == null) {
            allocate();
        }
        if (count == sources.length) {
            grow();
        }
        final long seq = frame.getLongLE(offset + SEQUENCE_OFFSET);
        sequence[count] = seq;
        if (feed != null) {
            runs.add(feed.nameBytes, seq);
        }
        src.wrap(frame, offset);
        final int n = src.rowCount();
        final int dict = src.symCount();
        if (remap.length < dict) {
            remap = new int[Math.max(dict, remap.length * 2)];
        }
        for (int c = 0; c < dict; c++) {
            final int id = syms.intern(frame, src.symOffset(c), src.symLength(c));
            if (id >= stampOfId.length) {
                final int size = Math.max(id + 1, stampOfId.length * 2);
                stampOfId = java.util.Arrays.copyOf(stampOfId, size);
                batchCodeOfId = java.util.Arrays.copyOf(batchCodeOfId, size);
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
                to.ensureWritable(n << 2);
                for (int r = 0; r < n; r++) {
                    to.writeIntLE(remap[src.symCode(r)]);
                }
            } else {
                to.writeBytes(frame, src.dataOffset(col), n * schema.type(col).width());
            }
        }
        if (count == 0) {
            firstFeedTime = src.feedTime();
        }
        rows += n;
        updates += src.updateCount();
        frameBytes += length;
        feeds[count] = feed;
        sources[count++] = source;
    }

    int count() {
        return count;
    }

    /**
     * An upper bound of the bytes of the merged update and its feed trailer once a frame of
     * {@code length} bytes more is added (a merged update is never longer than its frames together).
     */
    long bytesWith(final int length) {
        return frameBytes + length + Math.max(8, runs.trailerBytes()) + FeedRuns.MAX_RUN_BYTES;
    }

    /** The sequence field of the last frame added. */
    long lastSequence() {
        return sequence[count - 1];
    }

    /** The number frame {@code k} carries (its numbered feed's, when {@link #feed} is not null). */
    long sequence(final int k) {
        return sequence[k];
    }

    /** The numbered feeds' numbers of the batch, as runs for the merged entry's trailer. */
    FeedRuns feedRuns() {
        return runs;
    }

    UpdateSource source(final int k) {
        return sources[k];
    }

    FeedRegistry.Feed feed(final int k) {
        return feeds[k];
    }

    int rows() {
        return rows;
    }

    /**
     * The batch as one update: its rows in arrival order, one dictionary, the sum of the frames'
     * update counts, the last frame's sequence field and the first frame's feed time. Whole columns
     * are copied; nothing is decoded again. The buffer belongs to the batch (retain what is kept
     * past the next {@link #add}); it is reused tick after tick while no subscriber's outbound queue
     * still holds it, as a fresh allocation costs more than the copy when the timer wakes a cold thread.
     */
    ByteBuf merged(final UpdateEncoder enc) {
        final int dictBytes = dictionary.writerIndex();
        if (out != null && out.refCnt() > 1) {
            out.release();
            out = null;
        }
        if (out == null) {
            out = alloc.directBuffer(UpdateEncoder.frameLength(schema, rows, dictBytes));
        }
        enc.wrapForFill(out.clear(), schema, rows, dictBytes);
        enc.sequence(lastSequence()).updateCount(updates).feedTime(firstFeedTime);
        for (int col = 0; col < columns.length; col++) {
            out.setBytes(enc.dataOffset(col), columns[col], 0, rows * schema.type(col).width());
        }
        enc.addDictionary(dictionary, 0, dictBytes, dictCount);
        enc.finish();
        return out;
    }

    /** Empties the batch, keeping its buffers for the next tick. */
    void clear() {
        if (dictionary != null) {
            dictionary.clear();
            for (final ByteBuf c : columns) {
                c.clear();
            }
        }
        java.util.Arrays.fill(sources, 0, count, null);
        java.util.Arrays.fill(feeds, 0, count, null);
        runs.clear();
        count = 0;
        rows = 0;
        dictCount = 0;
        updates = 0;
        frameBytes = 0;
        if (++stamp == 0) {
            java.util.Arrays.fill(stampOfId, 0);
            stamp = 1;
        }
    }

    void release() {
        clear();
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
    }
}
