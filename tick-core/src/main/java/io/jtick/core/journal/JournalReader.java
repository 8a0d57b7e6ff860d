package io.jtick.core.journal;

import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

/** Reads journal entries in order (kdb's {@code -11!} replay); not thread-safe. */
public final class JournalReader implements AutoCloseable {
    /** {@link #next} found nothing more. */
    public static final long END = -1;
    /** {@link #next} stopped before an entry past the limit. */
    public static final long LIMIT = -2;

    private final ExcerptTailer tailer;

    JournalReader(final ExcerptTailer tailer) {
        this.tailer = tailer;
    }

    void skipTo(final long afterSequence) {
        if (afterSequence <= 0) {
            tailer.toStart();
            return;
        }
        while (true) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return;
                }
                final Bytes<?> b = dc.wire().bytes();
                if (b.readLong(b.readPosition() + FrameDescriptor.SEQUENCE_OFFSET) > afterSequence) {
                    dc.rollbackOnClose();
                    return;
                }
            }
        }
    }

    /**
     * Appends the next entry's frame to {@code dst} if its sequence is at most {@code maxSequence};
     * returns its sequence, {@link #END} when there is none, or {@link #LIMIT} when the next entry is
     * past the limit (it stays unread).
     */
    public long next(final ByteBuf dst, final long maxSequence) {
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                return END;
            }
            final Bytes<?> b = dc.wire().bytes();
            final long pos = b.readPosition();
            final long sequence = b.readLong(pos + FrameDescriptor.SEQUENCE_OFFSET);
            if (sequence > maxSequence) {
                dc.rollbackOnClose();
                return LIMIT;
            }
            Journal.copy(b, pos, dst, (int) b.readRemaining());
            return sequence;
        }
    }

    @Override
    public void close() {
        tailer.close();
    }
}
