package io.jtick.core.tp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The updates of one table waiting for the next timer tick: their frames back to back in one direct
 * buffer (grown as needed, reused across ticks while nobody else holds it) and, per frame, where it
 * came from so a frame the journal refuses can be refused to its sender, and the numbered feed whose
 * number it carries. Tickerplant thread only.
 */
final class TimerBatch {
    private final ByteBufAllocator alloc;
    private ByteBuf frames;
    private Tickerplant.UpdateSource[] sources = new Tickerplant.UpdateSource[64];
    private FeedRegistry.Feed[] feeds = new FeedRegistry.Feed[64];
    private int count;

    TimerBatch(final ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** Adds a frame; {@code feed} is the numbered feed that sent it (its number is in the frame's sequence field), or null. */
    void add(final Tickerplant.UpdateSource source, final FeedRegistry.Feed feed, final ByteBuf frame, final int offset,
             final int length) {
        if (frames == null) {
            frames = alloc.directBuffer(Math.max(64 * 1024, length));
        }
        frames.writeBytes(frame, offset, length);
        if (count == sources.length) {
            sources = java.util.Arrays.copyOf(sources, count * 2);
            feeds = java.util.Arrays.copyOf(feeds, count * 2);
        }
        feeds[count] = feed;
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

    FeedRegistry.Feed feed(final int k) {
        return feeds[k];
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
        java.util.Arrays.fill(feeds, 0, count, null);
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
