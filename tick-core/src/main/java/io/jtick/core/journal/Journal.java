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
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One trading day's journal: {@code <root>/<yyyy-MM-dd>/}, a Chronicle Queue holding one entry per
 * update, each entry the exact frame bytes that were published (sequence stamped). Sequences run on
 * across days. The appender belongs to the thread that calls {@link #append}; readers
 * ({@link #readerAfter}) are for the same thread too (the tickerplant's).
 */
public final class Journal implements AutoCloseable {
    private final Path dir;
    private final LocalDate date;
    private final ChronicleQueue queue;
    private final ExcerptAppender appender;
    private final long firstSequence;
    private long lastSequence;
    private long entries;

    private Journal(final Path dir, final LocalDate date, final ChronicleQueue queue, final long firstSequence,
                    final long lastSequence, final long entries) {
        this.dir = dir;
        this.date = date;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.firstSequence = firstSequence;
        this.lastSequence = lastSequence;
        this.entries = entries;
    }

    /**
     * Opens (or creates) the journal for {@code date} under {@code root}. An existing journal's
     * last entry is checked; a corrupt tail stops with {@link JournalCorruptException}.
     *
     * @param previousLastSequence last sequence of the days before (the next day's first entry follows it)
     */
    public static Journal open(final Path root, final LocalDate date, final long previousLastSequence, final NanoClock clock) {
        final Path dir = root.resolve(date.toString());
        try {
            Files.createDirectories(dir);
        } catch (final IOException e) {
            throw new IllegalStateException("cannot create journal directory [dir=" + dir + "]: " + e.getMessage(), e);
        }
        final ChronicleQueue queue = ChronicleQueue.singleBuilder(dir)
            .rollCycle(RollCycles.FAST_DAILY)
            .timeProvider(timeProvider(clock))
            .build();
        try {
            final long[] tail = readTail(queue, dir);
            final long last = tail == null ? previousLastSequence : tail[0];
            final long count = tail == null ? 0 : tail[1];
            final long first = tail == null ? previousLastSequence + 1 : tail[2];
            return new Journal(dir, date, queue, first, last, count);
        } catch (final RuntimeException e) {
            queue.close();
            throw e;
        }
    }

    /** Last sequence journalled on the latest day before {@code date} that has entries, or 0. */
    public static long lastSequenceBefore(final Path root, final LocalDate date, final NanoClock clock) {
        final Optional<LocalDate> prev = days(root).filter(d -> d.isBefore(date)).max(LocalDate::compareTo);
        if (prev.isEmpty()) {
            return 0;
        }
        try (ChronicleQueue q = ChronicleQueue.singleBuilder(root.resolve(prev.get().toString()))
            .rollCycle(RollCycles.FAST_DAILY).timeProvider(timeProvider(clock)).readOnly(false).build()) {
            final long[] tail = readTail(q, root.resolve(prev.get().toString()));
            return tail == null ? lastSequenceBefore(root, prev.get(), clock) : tail[0];
        }
    }

    /** The dates that have a journal directory under {@code root}. */
    public static Stream<LocalDate> days(final Path root) {
        if (!Files.isDirectory(root)) {
            return Stream.empty();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.getFileName().toString())
                .filter(n -> n.matches("\\d{4}-\\d{2}-\\d{2}"))
                .map(LocalDate::parse)
                .toList().stream();
        } catch (final IOException e) {
            throw new IllegalStateException("cannot list journal root [root=" + root + "]", e);
        }
    }

    /** {last sequence, sequence span, first sequence} or null when empty; throws on a corrupt tail. */
    private static long[] readTail(final ChronicleQueue queue, final Path dir) {
        final ExcerptTailer tailer = queue.createTailer();
        try {
            long first = -1;
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
                final long last = checkEntry(dc.wire().bytes(), dir, dc.index());
                return new long[] {last, last - first + 1, first};
            }
        } finally {
            tailer.close();
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

    /** Appends one frame (bytes [offset, offset+length) of {@code frame}); its sequence field must be set. */
    public void append(final ByteBuf frame, final int offset, final int length, final long sequence) {
        try (DocumentContext dc = appender.writingDocument()) {
            final Bytes<?> bytes = dc.wire().bytes();
            if (frame.hasMemoryAddress()) {
                bytes.unsafeWrite(frame.memoryAddress() + offset, length);
            } else {
                final byte[] copy = new byte[length];
                frame.getBytes(offset, copy);
                bytes.write(copy);
            }
        }
        lastSequence = sequence;
        entries++;
    }

    /** A reader positioned after the entry with {@code sequence} (0 or less: from the first entry). */
    public JournalReader readerAfter(final long sequence) {
        final ExcerptTailer tailer = queue.createTailer();
        final JournalReader reader = new JournalReader(tailer);
        reader.skipTo(sequence);
        return reader;
    }

    public LocalDate date() {
        return date;
    }

    public Path dir() {
        return dir;
    }

    public long firstSequence() {
        return firstSequence;
    }

    public long lastSequence() {
        return lastSequence;
    }

    public long entries() {
        return entries;
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
