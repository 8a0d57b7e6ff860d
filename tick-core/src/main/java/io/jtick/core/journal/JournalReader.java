package io.jtick.core.journal;

import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.UnsafeApi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

/** Reads journal entries in order (kdb's {@code -11!} replay); not thread-safe. */
public final class JournalReader implements AutoCloseable {
    /** {@link #next} found nothing more. */
    public static final long END = -1;
    /** {@link #next} stopped before an entry past the limit. */
    public static final long LIMIT = -2;

    private final SingleChronicleQueue queue;
    private final ExcerptTailer tailer;
    private final boolean ownsQueue;

    JournalReader(final SingleChronicleQueue queue, final ExcerptTailer tailer, final boolean ownsQueue) {
        this.queue = queue;
        this.tailer = tailer;
        this.ownsQueue = ownsQueue;
    }

    /**
     * Opens the journal of {@code date} under {@code root} read-only (no appender, nothing created or
     * written; a tickerplant may be appending to it meanwhile), positioned after {@code afterSequence}.
     */
    public static JournalReader open(final Path root, final LocalDate date, final long afterSequence) {
        final Path dir = root.resolve(date.toString());
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no journal for that day [root=" + root + ", date=" + date + "]");
        }
        final SingleChronicleQueue queue = ChronicleJournal.builder(dir).readOnly(true).build();
        final JournalReader reader;
        try {
            reader = new JournalReader(queue, queue.createTailer(), true);
        } catch (final RuntimeException e) {
            queue.close();
            throw e;
        }
        reader.skipTo(afterSequence);
        return reader;
    }

    /**
     * Positions the reader on the first entry whose sequence is greater than {@code afterSequence}
     * (past the end when there is none, so entries appended later are read next). Sequences grow
     * with the Chronicle index but may skip (a chained TP keeps its upstream's), so this binary-searches
     * each daily cycle through {@link ExcerptTailer#moveToIndex}: O(log n) entries read, not the day.
     */
    void skipTo(final long afterSequence) {
        tailer.toStart();
        if (afterSequence <= 0) {
            return;
        }
        final int first = queue.firstCycle();
        final int last = queue.lastCycle();
        if (first == Integer.MAX_VALUE || last == Integer.MIN_VALUE) {
            return;
        }
        final RollCycle roll = queue.rollCycle();
        for (final Long c : queue.listCyclesBetween(first, last)) {
            final int cycle = c.intValue();
            final long count = tailer.excerptsInCycle(cycle);
            if (count <= 0 || sequenceAt(roll.toIndex(cycle, count - 1)) <= afterSequence) {
                continue;
            }
            long lo = 0;
            long hi = count - 1;
            while (lo < hi) {
                final long mid = (lo + hi) >>> 1;
                if (sequenceAt(roll.toIndex(cycle, mid)) > afterSequence) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            tailer.moveToIndex(roll.toIndex(cycle, lo));
            return;
        }
        tailer.toEnd();
    }

    private long sequenceAt(final long index) {
        if (!tailer.moveToIndex(index)) {
            throw new IllegalStateException("journal index vanished while seeking [index=0x" + Long.toHexString(index) + "]");
        }
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                throw new IllegalStateException("no journal entry at index [index=0x" + Long.toHexString(index) + "]");
            }
            final Bytes<?> b = dc.wire().bytes();
            return b.readLong(b.readPosition() + FrameDescriptor.SEQUENCE_OFFSET);
        }
    }

    /**
     * Appends the next entry's frame (without its feed trailer) to {@code dst} if its sequence is at most {@code maxSequence};
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
            copy(b, pos, dst, (int) Math.min(Math.max(b.readInt(pos), 0), b.readRemaining()));
            return sequence;
        }
    }

    @Override
    public void close() {
        tailer.close();
        if (ownsQueue) {
            queue.close();
        }
    }

    /** Copies {@code length} bytes of an entry at {@code pos} into {@code dst} at its writer index. */
    static void copy(final Bytes<?> bytes, final long pos, final ByteBuf dst, final int length) {
        dst.ensureWritable(length);
        final int w = dst.writerIndex();
        if (dst.hasMemoryAddress() && bytes.isDirectMemory()) {
            UnsafeApi.copyMemory(bytes.addressForRead(pos), dst.memoryAddress() + w, length);
        } else {
            for (int i = 0; i < length; i++) {
                dst.setByte(w + i, bytes.readByte(pos + i));
            }
        }
        dst.writerIndex(w + length);
    }
}
