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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Journal} on Chronicle Queue: one daily-rolled queue per trading day, one appender, owned by one thread.
 *
 * <p>Write failures: the queue's files are memory-mapped, so a full volume shows as a fault in the
 * write ({@link InternalError}) rather than an {@link IOException}. Two guards: while the volume's
 * free space is under {@code minFreeBytes} (checked every {@code minFreeBytes / 8} bytes written or
 * every 100 ms, and at every append while short) appends are refused before they touch the file; and
 * a write that fails anyway is rolled back, Chronicle's write lock (held by this process) is released,
 * and the queue is opened again at the next append (at most every 100 ms), so the journal carries on
 * by itself once writes succeed. Readers opened before keep the old queue, closed with the journal.
 *
 * <p>Forcing ({@link #sync}): fdatasync of the cycle file the appender writes, through a channel kept
 * open for it. Chronicle's own {@code ExcerptAppender.sync()} (with the queue built
 * {@code syncMode(SyncMode.SYNC)}; its default, ASYNC, is an {@code msync(MS_ASYNC)}, which Linux ignores)
 * msyncs only the appender's current chunk from the last synced page to the write position: an entry
 * left in the previous chunk when a write crossed a chunk boundary is forced only when that chunk's
 * last user releases it (a tailer may hold it long after), and the store's header (its write
 * position) and index pages are not forced at all. A force of the whole file writes the same dirty
 * pages (msync MS_SYNC is a ranged fsync in Linux) and leaves none of those behind. A new cycle file's
 * directory entry (and the day directory's) is forced once, when it is first forced.
 *
 * <p>The file is read ahead of the appender on another thread ({@link ReadAheadAgent}), so that the
 * appender's thread does not zero the pages it writes into for the first time.
 */
final class ChronicleJournal implements Journal {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleJournal.class);
    private static final long RETRY_NANOS = 100_000_000L;

    private final Path dir;
    private final LocalDate date;
    private final NanoClock clock;
    private final long minFreeBytes;
    private final FileStore store;
    private final List<SingleChronicleQueue> retired = new ArrayList<>();
    private SingleChronicleQueue queue;
    private ExcerptAppender appender;
    private final long firstSequence;
    private long lastSequence;
    private boolean broken;
    private long reopenAfterNanos;
    private long bytesSinceSpaceCheck;
    private long lastSpaceCheckNanos;
    private boolean spaceShort;
    /** Position after the last entry written, and up to where {@link #pretouch} has touched the pages (0: nothing yet). */
    private long endPosition;
    private long touchedUntil;
    /** The feed trailer of the entry being written, little-endian as Chronicle writes; a run takes at most this many bytes. */
    private static final int TRAILER_RUN_MOST = 2 * Long.BYTES + 1 + 255;
    private ByteBuffer trailer = ByteBuffer.allocate(Long.BYTES + TRAILER_RUN_MOST).order(ByteOrder.LITTLE_ENDIAN);
    private final LandedCheck landed = new LandedCheck();
    private final ReadAheadAgent readAhead;
    /** What {@link #sync} forces, and how far. */
    private final JournalForcer forcer;

    private ChronicleJournal(final Path dir, final LocalDate date, final SingleChronicleQueue queue, final long firstSequence,
                             final long lastSequence, final NanoClock clock, final long minFreeBytes) {
        this.dir = dir;
        this.date = date;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.firstSequence = firstSequence;
        this.lastSequence = lastSequence;
        this.clock = clock;
        this.minFreeBytes = minFreeBytes;
        this.forcer = new JournalForcer(dir, date);
        this.readAhead = new ReadAheadAgent(date.toString());
        FileStore fs = null;
        try {
            fs = Files.getFileStore(dir);
        } catch (final IOException e) {
            LOG.warn("cannot watch the journal volume's free space [dir={}]: {}", dir, e.toString());
        }
        this.store = fs;
    }

    static ChronicleJournal open(final Path root, final LocalDate date, final long previousLastSequence, final NanoClock clock,
                                 final long minFreeBytes) {
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
                ? new ChronicleJournal(dir, date, queue, previousLastSequence + 1, previousLastSequence, clock, minFreeBytes)
                : new ChronicleJournal(dir, date, queue, ends[0], ends[1], clock, minFreeBytes);
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
        final String problem = entryProblem(bytes);
        if (problem != null) {
            throw corrupt(problem + " [dir=" + dir + ", index=0x" + Long.toHexString(index) + "]", dir);
        }
        return bytes.readLong(bytes.readPosition() + FrameDescriptor.SEQUENCE_OFFSET);
    }

    /**
     * Why the entry at the bytes' read position is not a valid journal entry (an update frame with a
     * positive sequence, then nothing or exactly one feed trailer), or null when it is one.
     */
    static String entryProblem(final Bytes<?> bytes) {
        final long pos = bytes.readPosition();
        final long remaining = bytes.readRemaining();
        if (remaining < FrameDescriptor.TABLE_NAME_OFFSET) {
            return "journal entry too short (" + remaining + " bytes)";
        }
        final int length = bytes.readInt(pos);
        final int version = bytes.readUnsignedByte(pos + FrameDescriptor.VERSION_OFFSET);
        final int type = bytes.readUnsignedByte(pos + FrameDescriptor.TYPE_OFFSET);
        final long sequence = bytes.readLong(pos + FrameDescriptor.SEQUENCE_OFFSET);
        final boolean lengthFits = length >= FrameDescriptor.TABLE_NAME_OFFSET && length <= remaining;
        final boolean trailerFits = lengthFits && (remaining == length || readTrailer(bytes, pos + length, pos + remaining, null));
        if (!trailerFits || version != FrameDescriptor.VERSION
            || type != MessageType.UPDATE || sequence <= 0) {
            return "journal entry is not a valid update frame [length=" + length + ", entryBytes=" + remaining
                + ", version=" + version + ", type=" + type + ", sequence=" + sequence + "]";
        }
        return null;
    }

    /** One run of a feed trailer as {@link #readTrailer} finds it: the name is {@code n} bytes at {@code nameAt}. */
    @FunctionalInterface
    private interface TrailerRun {
        void run(Bytes<?> b, long nameAt, int n, long first, long last);
    }

    /**
     * Reads the feed trailer in [at, end) of an entry (either form, see {@link Journal}), reporting each
     * run to {@code out} (null: only checks); false, with nothing reported, when it is not exactly one
     * valid trailer.
     */
    private static boolean readTrailer(final Bytes<?> b, final long at, final long end, final TrailerRun out) {
        if (end - at < 8) {
            return false;
        }
        final long head = b.readLong(at);
        if (head > 0) {
            if (end - at < 10) {
                return false;
            }
            final int n = b.readUnsignedByte(at + 8);
            if (n == 0 || end != at + 9 + n) {
                return false;
            }
            if (out != null) {
                out.run(b, at + 9, n, head, head);
            }
            return true;
        }
        if (head == 0 || head < -(end - at) / FeedRuns.RUN_HEADER) {
            return false;
        }
        final long runs = -head;
        long p = at + 8;
        for (long r = 0; r < runs; r++) {
            if (end - p < FeedRuns.RUN_HEADER + 1) {
                return false;
            }
            final long first = b.readLong(p);
            final long last = b.readLong(p + 8);
            final int n = b.readUnsignedByte(p + 16);
            if (first <= 0 || last < first || n == 0 || end - p < FeedRuns.RUN_HEADER + n) {
                return false;
            }
            p += FeedRuns.RUN_HEADER + n;
        }
        if (p != end) {
            return false;
        }
        if (out != null) {
            p = at + 8;
            for (long r = 0; r < runs; r++) {
                final int n = b.readUnsignedByte(p + 16);
                out.run(b, p + FeedRuns.RUN_HEADER, n, b.readLong(p), b.readLong(p + 8));
                p += FeedRuns.RUN_HEADER + n;
            }
        }
        return true;
    }


    private static JournalCorruptException corrupt(final String what, final Path dir) {
        final Path root = dir.getParent();
        return new JournalCorruptException(what + ". The journal tail is corrupt: stop the tickerplant and repair the day with "
            + "./jtick journal repair " + dir.getFileName() + (root == null ? "" : " --dir " + root)
            + " (it keeps every valid entry, moves the bad tail aside with a report, and the tickerplant numbers on after the "
            + "last valid entry), then start it again.");
    }

    /** Feed trailers of every entry of the day in {@code dir}, read read-only (see {@link Journal#scanFeeds}). */
    static void scanFeeds(final Path dir, final Journal.FeedEntry out) {
        final byte[][] lastName = {new byte[0]};
        final String[] lastString = {""};
        final TrailerRun report = (b, nameAt, n, first, last) -> {
            if (!sameName(b, nameAt, lastName[0], n)) {
                lastName[0] = new byte[n];
                for (int i = 0; i < n; i++) {
                    lastName[0][i] = b.readByte(nameAt + i);
                }
                lastString[0] = new String(lastName[0], java.nio.charset.StandardCharsets.US_ASCII);
            }
            out.journalled(lastString[0], first, last);
        };
        try (SingleChronicleQueue q = builder(dir).readOnly(true).build(); ExcerptTailer tailer = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        return;
                    }
                    final Bytes<?> b = dc.wire().bytes();
                    final long pos = b.readPosition();
                    final long remaining = b.readRemaining();
                    if (remaining < FrameDescriptor.TABLE_NAME_OFFSET) {
                        continue;
                    }
                    final int length = b.readInt(pos);
                    if (length > 0 && remaining > length) {
                        readTrailer(b, pos + length, pos + remaining, report);
                    }
                }
            }
        } catch (final RuntimeException e) {
            if (e instanceof JournalCorruptException) {
                throw e;
            }
            throw corrupt("journal entry cannot be read while looking for feed numbers: " + e, dir);
        }
    }

    private static boolean sameName(final Bytes<?> b, final long at, final byte[] name, final int n) {
        if (name.length != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b.readByte(at + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void append(final ByteBuf frame, final int offset, final int length, final long sequence, final FeedRuns feeds) {
        if (offset < 0 || length < 0 || offset + length > frame.capacity()) {
            throw new IndexOutOfBoundsException("frame bytes outside the buffer [offset=" + offset + ", length=" + length
                + ", capacity=" + frame.capacity() + "]");
        }
        final int runs = feeds == null ? 0 : feeds.size();
        for (int r = 0; r < runs; r++) {
            final int n = feeds.name(r).length;
            if (n == 0 || n > 255 || feeds.first(r) <= 0 || feeds.last(r) < feeds.first(r)) {
                throw new IllegalArgumentException("feed run must have a name of 1..255 bytes and numbers 0 < first <= last [nameLength="
                    + n + ", first=" + feeds.first(r) + ", last=" + feeds.last(r) + "]");
            }
        }
        if (broken) {
            reopen();
        }
        if (store != null && minFreeBytes > 0) {
            checkSpace(length);
        }
        final DocumentContext dc;
        try {
            dc = appender.writingDocument();
        } catch (final RuntimeException | InternalError e) {
            throw failed(e, sequence);
        }
        try {
            final Bytes<?> bytes = dc.wire().bytes();
            if (frame.hasMemoryAddress()) {
                bytes.unsafeWrite(frame.memoryAddress() + offset, length);
            } else {
                final byte[] copy = new byte[length];
                frame.getBytes(offset, copy);
                bytes.write(copy);
            }
            final int n = runs == 0 ? 0 : trailer(feeds, runs);
            bytes.write(trailer.array(), 0, n);
            endPosition = bytes.writePosition();
            if (readAhead.wants(endPosition)) {
                readAhead.request(appenderFile(), endPosition);
            }
            if (minFreeBytes <= 0 && endPosition > touchedUntil && length >= Long.BYTES && !landed.landed(appenderFile(), endPosition,
                n > 0 ? trailer.getLong(n - Long.BYTES) : frame.getLongLE(offset + length - Long.BYTES))) {
                throw new IllegalStateException("the entry's last page did not reach the file (volume full?)");
            }
        } catch (final RuntimeException | InternalError | IOException e) {
            try {
                dc.rollbackOnClose();
                dc.close();
            } catch (final RuntimeException | InternalError again) {
                e.addSuppressed(again);
            }
            throw failed(e, sequence);
        }
        try {
            dc.close();
        } catch (final RuntimeException | InternalError e) {
            throw failed(e, sequence);
        }
        lastSequence = sequence;
    }

    /** Writes the feed trailer of {@code feeds} into {@link #trailer} (grown as needed); returns its length. */
    private int trailer(final FeedRuns feeds, final int runs) {
        final int most = Long.BYTES + runs * TRAILER_RUN_MOST;
        if (trailer.capacity() < most) {
            trailer = ByteBuffer.allocate(most).order(ByteOrder.LITTLE_ENDIAN);
        }
        trailer.clear();
        if (runs == 1 && feeds.first(0) == feeds.last(0)) {
            trailer.putLong(feeds.first(0)).put((byte) feeds.name(0).length).put(feeds.name(0));
        } else {
            trailer.putLong(-runs);
            for (int r = 0; r < runs; r++) {
                trailer.putLong(feeds.first(r)).putLong(feeds.last(r)).put((byte) feeds.name(r).length).put(feeds.name(r));
            }
        }
        return trailer.position();
    }

    /** Refuses the append while the volume's free space is under the minimum; checks it now and then. */
    private void checkSpace(final int length) {
        bytesSinceSpaceCheck += length;
        final long now = System.nanoTime();
        if (!spaceShort && bytesSinceSpaceCheck < minFreeBytes / 8 && now - lastSpaceCheckNanos < RETRY_NANOS) {
            return;
        }
        bytesSinceSpaceCheck = 0;
        lastSpaceCheckNanos = now;
        long usable;
        try {
            usable = store.getUsableSpace();
        } catch (final IOException e) {
            usable = Long.MAX_VALUE;
        }
        final boolean wasShort = spaceShort;
        spaceShort = usable < minFreeBytes;
        if (spaceShort) {
            if (!wasShort) {
                LOG.error("journal volume nearly full: refusing updates until it has room [dir={}, usableBytes={}, minimumBytes={}]", dir,
                    usable, minFreeBytes);
            }
            throw new IllegalStateException("journal volume nearly full [dir=" + dir + ", usableBytes=" + usable + ", minimumBytes="
                + minFreeBytes + "]");
        }
        if (wasShort) {
            LOG.info("journal volume has room again [dir={}, usableBytes={}]", dir, usable);
        }
    }

    /**
     * A write failed: releases Chronicle's write lock (this process holds it, and a failed write may
     * not have let it go), marks the queue for reopening and says so.
     */
    private IllegalStateException failed(final Throwable cause, final long sequence) {
        broken = true;
        reopenAfterNanos = System.nanoTime() + RETRY_NANOS;
        ChronicleLocks.releaseWriteLock(queue);
        return new IllegalStateException("journal write failed [dir=" + dir + ", sequence=" + sequence + "]: " + cause, cause);
    }

    /** Opens the queue again after a failed write (readers keep the old one until the journal closes). */
    private void reopen() {
        final long now = System.nanoTime();
        if (now < reopenAfterNanos) {
            throw new IllegalStateException("journal unavailable after a failed write, retrying [dir=" + dir + ", retryInMillis="
                + (reopenAfterNanos - now) / 1_000_000 + "]");
        }
        reopenAfterNanos = now + RETRY_NANOS;
        try {
            appender.close();
        } catch (final RuntimeException | InternalError e) {
            LOG.debug("closing the failed appender: {}", e.toString());
        }
        retired.add(queue);
        final SingleChronicleQueue fresh;
        try {
            fresh = builder(dir).timeProvider(timeProvider(clock)).build();
        } catch (final RuntimeException | InternalError e) {
            throw new IllegalStateException("journal cannot be reopened after a failed write [dir=" + dir + "]: " + e, e);
        }
        final long[] ends;
        try {
            ends = readEnds(fresh, dir);
            appender = fresh.createAppender();
        } catch (final RuntimeException | InternalError e) {
            // a full volume can fault (SIGBUS) on the mapped file while its ends are read, as on a write
            try {
                fresh.close();
            } catch (final RuntimeException | InternalError again) {
                e.addSuppressed(again);
            }
            throw new IllegalStateException("journal cannot be reopened after a failed write [dir=" + dir + "]: " + e, e);
        }
        queue = fresh;
        touchedUntil = 0;
        endPosition = 0;
        if (ends != null && ends[1] != lastSequence) {
            LOG.error("after a failed write the journal ends at another sequence than written [dir={}, expected={}, found={}]", dir,
                lastSequence, ends[1]);
            lastSequence = Math.max(lastSequence, ends[1]);
        }
        broken = false;
        LOG.info("journal reopened after a failed write [dir={}, lastSequence={}]", dir, lastSequence);
    }

    @Override
    public long sync() {
        return forcer.force(appenderFile(), lastSequence);
    }

    /** The cycle file the appender writes, or null before its first write. */
    private Path appenderFile() {
        final File f = appender.currentFile();
        return f == null ? null : f.toPath();
    }

    /**
     * Touches pages ahead inside a writing document that is rolled back: each page gets a zero byte
     * where the file holds zeros anyway, past the document's header, and the rollback leaves the
     * queue as it was (what Chronicle's enterprise pretoucher does from its own thread).
     */
    @Override
    public int pretouch(final int maxPages) {
        if (broken || spaceShort || store == null || maxPages <= 0
            || endPosition > 0 && touchedUntil >= endPosition + PRETOUCH_BYTES - PAGE) {
            return 0;
        }
        try {
            // a page touched on a full volume faults, and the JVM may report that fault later in other code: touch only with room
            if (store.getUsableSpace() < minFreeBytes + PRETOUCH_ROOM) {
                return 0;
            }
        } catch (final IOException e) {
            return 0;
        }
        int touched = 0;
        try (DocumentContext dc = appender.writingDocument()) {
            // rolled back whatever happens: a fault while touching (a full volume) must not commit the document
            dc.rollbackOnClose();
            final Bytes<?> b = dc.wire().bytes();
            final long pos = b.writePosition();
            final long limit = Math.min(b.realCapacity(), pos + PRETOUCH_BYTES);
            long p = Math.max((pos & -PAGE) + PAGE, touchedUntil);
            while (p < limit && touched < maxPages) {
                b.writeByte(p, (byte) 0);
                p += PAGE;
                touched++;
            }
            touchedUntil = p;
            endPosition = Math.max(endPosition, pos);
        } catch (final RuntimeException | InternalError e) {
            touchedUntil = 0;
            LOG.warn("journal pretouch failed; the journal reopens at the next append [dir={}]: {}", dir, failed(e, 0).toString());
        }
        return touched;
    }

    private static final long PAGE = 4096;
    /** Free space the volume must have (above the guard's minimum) for {@link #pretouch} to touch anything. */
    private static final long PRETOUCH_ROOM = 16 * PRETOUCH_BYTES;

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
        try {
            appender.close();
        } catch (final RuntimeException | InternalError e) {
            LOG.warn("journal appender close failed [dir={}]: {}", dir, e.toString());
        }
        readAhead.close();
        forcer.close();
        landed.close();
        queue.close();
        for (final SingleChronicleQueue q : retired) {
            q.close();
        }
        retired.clear();
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
