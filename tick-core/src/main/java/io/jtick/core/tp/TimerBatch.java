package io.jtick.core.tp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The updates of one table waiting for the next timer tick: their frames back to back in one direct
 * buffer (grown as needed, reused across ticks while nobody else holds it) and, per frame, where it
 * came from so a frame the journal refuses can be refused to its sender. Tickerplant thread only.
 */
final class TimerBatch {
    private final ByteBufAllocator alloc;
    private ByteBuf frames;
    private Tickerplant.UpdateSource[] sources = new Tickerplant.UpdateSource[64];
    private int count;

    TimerBatch(final ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    void add(final Tickerplant.UpdateSource source, final ByteBuf frame, final int offset, final int length) {
        if (frames == null) {
            frames = alloc.directBuffer(Math.max(64 * 1024, length));
        }
        frames.writeBytes(frame, offset, length);
        if (count == sources.length) {
            sources = java.util.Arrays.copyOf(sources, count * 2);
        }
        sources[count++] = source;
    }

    int count() {
        return count;
    }

    /** The frames, from the reader index, each starting with its int32 length. */
    ByteBuf frames() {
        return frames;
    }

    Tickerplant.UpdateSource source(final int k) {
        return sources[k];
    }

    /**
     * Empties the batch. The buffer is reused only if no subscriber still holds a slice of it (a
     * one-update batch is published as a retained slice, which waits in the outbound buffer of a
     * subscriber whose socket is full); otherwise it is let go and the next batch gets a new one.
     */
    void clear() {
        if (frames != null) {
            if (frames.refCnt() == 1) {
                frames.clear();
            } else {
                frames.release();
                frames = null;
            }
        }
        java.util.Arrays.fill(sources, 0, count, null);
        count = 0;
    }

    void release() {
        clear();
        if (frames != null) {
            frames.release();
            frames = null;
        }
    }
}
