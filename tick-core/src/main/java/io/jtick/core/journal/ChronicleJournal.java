package io.jtick.core.journal;

import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.MessageType;
import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

/** {@link Journal} on Chronicle Queue: one daily-rolled queue per trading day, one appender, owned by one thread. */
final class ChronicleJournal implements Journal {
    private final Path dir;
    private final LocalDate date;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final long firstSequence;
    private long lastSequence;

    private ChronicleJournal(final Path dir, final LocalDate date, final SingleChronicleQueue queue, final long firstSequence,
                             final long lastSequence) {
        this.dir = dir;
        this.date = date;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.firstSequence = firstSequence;
        this.lastSequence = lastSequence;
    }

    static ChronicleJournal open(final Path root, final LocalDate date, final long previousLastSequence, final NanoClock clock) {
        final Path dir = root.resolve(date.toString());
        try {
            Files.createDirectories(dir);
        } catch (final IOException e) {
            throw new IllegalStateException("cannot create journal directory [dir=" + dir + "]: " + e.getMessage(), e);
        }
        final SingleChronicleQueue queue = builder(dir).timeProvider(timeProvider(clock)).build();
        try {
            final long[] ends = readEnds(queue, dir);
            return ends == null
                ? new ChronicleJournal(dir, date, queue, previousLastSequence + 1, previousLastSequence)
                : new ChronicleJournal(dir, date, queue, ends[0], ends[1]);
        } catch (final RuntimeException e) {
            queue.close();
            throw e;
        }
    }

    /** Last sequence in the journal directory {@code dir}, or 0 when it has no entries; opens it read-only. */
    static long lastSequenceOf(final Path dir) {
        try (SingleChronicleQueue q = builder(dir).readOnly(true).build()) {
            final long[] ends = readEnds(q, dir);
            return ends == null ? 0 : ends[1];
        }
    }

    /** The one way this package builds a day's queue (daily files; the journal directory is the day). */
    static net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder builder(final Path dir) {
        return ChronicleQueue.singleBuilder(dir).rollCycle(RollCycles.FAST_DAILY);
    }

    /** {first sequence, last sequence} or null when empty; throws on a corrupt first or last entry. */
    private static long[] readEnds(final ChronicleQueue queue, final Path dir) {
        try (ExcerptTailer tailer = queue.createTailer()) {
            final long first;
            try (DocumentContext dc = tailer.toStart().readingDocument()) {
                if (!dc.isPresent()) {
                    return null;
                }
                first = checkEntry(dc.wire().bytes(), dir, dc.index());
            }
            tailer.direction(TailerDirection.BACKWARD).toEnd();
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return null;
                }
                return new long[] {first, checkEntry(dc.wire().bytes(), dir, dc.index())};
            }
        }
    }

    private static long checkEntry(final Bytes<?> bytes, final Path dir, final long index) {
        final long pos = bytes.readPosition();
        final long remaining = bytes.readRemaining();
        final String where = "[dir=" + dir + ", index=0x" + Long.toHexString(index) + "]";
        if (remaining < FrameDescriptor.TABLE_NAME_OFFSET) {
            throw corrupt("journal entry too short (" + remaining + " bytes) " + where, dir);
        }
        final int length = bytes.readInt(pos);
        final int version = bytes.readUnsignedByte(pos + FrameDescriptor.VERSION_OFFSET);
        final int type = bytes.readUnsignedByte(pos + FrameDescriptor.TYPE_OFFSET);
        final long sequence = bytes.readLong(pos + FrameDescriptor.SEQUENCE_OFFSET);
        if (length != remaining || version != FrameDescriptor.VERSION || type != MessageType.UPDATE || sequence <= 0) {
            throw corrupt("journal entry is not a valid update frame [length=" + length + ", entryBytes=" + remaining
                + ", version=" + version + ", type=" + type + ", sequence=" + sequence + "] " + where, dir);
        }
        return sequence;
    }

    private static JournalCorruptException corrupt(final String what, final Path dir) {
        return new JournalCorruptException(what + ". The journal tail is corrupt: stop jtick, move the day's journal aside (mv "
            + dir + " " + dir + ".corrupt) and start again; subscribers resynchronise from the next sequence, and the "
            + "valid entries stay readable in the moved directory.");
    }

    @Override
    public void append(final ByteBuf frame, final int offset, final int length, final long sequence) {
        if (offset < 0 || length < 0 || offset + length > frame.capacity()) {
            throw new IndexOutOfBoundsException("frame bytes outside the buffer [offset=" + offset + ", length=" + length
                + ", capacity=" + frame.capacity() + "]");
        }
        try (DocumentContext dc = appender.writingDocument()) {
            try {
                final Bytes<?> bytes = dc.wire().bytes();
                if (frame.hasMemoryAddress()) {
                    bytes.unsafeWrite(frame.memoryAddress() + offset, length);
                } else {
                    final byte[] copy = new byte[length];
                    frame.getBytes(offset, copy);
                    bytes.write(copy);
                }
            } catch (final RuntimeException | Error e) {
                dc.rollbackOnClose();
                throw e;
            }
        }
        lastSequence = sequence;
    }

    @Override
    public JournalReader readerAfter(final long sequence) {
        final JournalReader reader = new JournalReader(queue, queue.createTailer(), false);
        reader.skipTo(sequence);
        return reader;
    }

    @Override
    public LocalDate date() {
        return date;
    }

    @Override
    public Path dir() {
        return dir;
    }

    @Override
    public long firstSequence() {
        return firstSequence;
    }

    @Override
    public long lastSequence() {
        return lastSequence;
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
    }

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

    private static TimeProvider timeProvider(final NanoClock clock) {
        return new TimeProvider() {
            @Override
            public long currentTimeMillis() {
                return clock.epochNanos() / 1_000_000L;
            }

            @Override
            public long currentTimeMicros() {
                return clock.epochNanos() / 1_000L;
            }

            @Override
            public long currentTimeNanos() {
                return clock.epochNanos();
            }
        };
    }
}
