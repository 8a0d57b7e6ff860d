package io.jtick.core.journal;

import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One trading day's journal as the tickerplant writes it: {@code <root>/<yyyy-MM-dd>/}, a Chronicle
 * Queue holding one entry per published update, each entry the exact frame bytes that were
 * published (sequence stamped): one feed update, or in timer log+publish mode one table's timer
 * batch merged into one update. When the entry holds numbered feeds' updates, a feed trailer
 * follows the frame ({@link FeedRuns}), in one of two forms:
 * <ul>
 *   <li>one number: {@code int64 feedSequence (> 0), uint8 nameLength, name} (ASCII);</li>
 *   <li>runs: {@code int64 -runCount (< 0)}, then per run {@code int64 first, int64 last, uint8
 *       nameLength, name}: the feed's numbers first..last are all in the entry.</li>
 * </ul>
 * Readers hand out the frame only; the trailer is what lets a restarted tickerplant tell each feed
 * the last update it holds ({@link #scanFeeds}). Sequences run on across days. {@link #open} gives the writer, owned by the
 * thread that appends (the tickerplant's); readers of a day that is not being written use
 * {@link JournalReader#open}, which opens the queue read-only.
 *
 * <p>An interface so the tickerplant can be given a journal whose appends fail on demand (its
 * tests); {@link #open} is the only production implementation.
 */
public interface Journal extends AutoCloseable {

    /** What {@link #scanFeeds} reports: numbered feed {@code feed}'s updates first..last, entry by entry in journal order. */
    @FunctionalInterface
    interface FeedEntry {
        void journalled(String feed, long first, long last);
    }

    /** How the tickerplant opens a day's journal ({@code Journal::open} outside tests). */
    @FunctionalInterface
    interface Opener {
        Journal open(Path root, LocalDate date, long previousLastSequence, NanoClock clock, long minFreeBytes);
    }

    /**
     * Opens (or creates) the journal for {@code date} under {@code root} for appending. An existing
     * journal's first and last entries are checked; a corrupt one stops with {@link JournalCorruptException}.
     *
     * @param previousLastSequence last sequence of the days before (the next day's first entry follows it)
     */
    static Journal open(final Path root, final LocalDate date, final long previousLastSequence, final NanoClock clock) {
        return open(root, date, previousLastSequence, clock, 0);
    }

    /**
     * {@link #open(Path, LocalDate, long, NanoClock)} that refuses appends (an {@link IllegalStateException})
     * while the journal's volume has less than {@code minFreeBytes} free (0: no check). After a failed
     * append the journal opens its queue again by itself at a later append.
     */
    static Journal open(final Path root, final LocalDate date, final long previousLastSequence, final NanoClock clock,
                        final long minFreeBytes) {
        return ChronicleJournal.open(root, date, previousLastSequence, clock, minFreeBytes);
    }

    /**
     * Loads the journal's runtime now. Chronicle starts its resource-releasing thread and registers a JVM shutdown hook
     * when the process makes its first mapped file; made after the JVM's shutdown has begun, that fails, and every later
     * journal of the process fails with it. A process that may open its first journal late, on a thread of its own
     * (feed-sim's profiling runs), calls this first, where the work is asked for, before that thread starts.
     */
    static void loadRuntime() {
        ChronicleRuntime.load();
    }

    /** Last sequence journalled on the latest day before {@code date} that has entries, or 0; reads read-only. */
    static long lastSequenceBefore(final Path root, final LocalDate date) {
        final Optional<LocalDate> prev = days(root).filter(d -> d.isBefore(date)).max(LocalDate::compareTo);
        if (prev.isEmpty()) {
            return 0;
        }
        final long last = ChronicleJournal.lastSequenceOf(root.resolve(prev.get().toString()));
        return last > 0 ? last : lastSequenceBefore(root, prev.get());
    }

    /**
     * Reports the feed trailer of every entry of {@code date}'s journal under {@code root}, in journal
     * order (entries without one are skipped); reads read-only, and does nothing when the day has no
     * journal. Throws {@link JournalCorruptException} when an entry cannot be read.
     */
    static void scanFeeds(final Path root, final LocalDate date, final FeedEntry out) {
        final Path dir = root.resolve(date.toString());
        if (Files.isDirectory(dir)) {
            ChronicleJournal.scanFeeds(dir, out);
        }
    }

    /** The dates that have a journal directory under {@code root}. */
    static Stream<LocalDate> days(final Path root) {
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

    /**
     * Appends one frame (bytes [offset, offset+length) of {@code frame}); its sequence field must be
     * set to {@code sequence}. All or nothing: when it throws, no part of the entry was written and
     * {@link #lastSequence()} is unchanged.
     */
    default void append(final ByteBuf frame, final int offset, final int length, final long sequence) {
        append(frame, offset, length, sequence, null);
    }

    /**
     * {@link #append(ByteBuf, int, int, long)} with the feed trailer of the numbered feeds' updates
     * the frame holds ({@code feeds}; null or empty for none; names of 1..255 ASCII bytes).
     */
    void append(ByteBuf frame, int offset, int length, long sequence, FeedRuns feeds);

    /**
     * Touches up to {@code maxPages} pages of the journal's file ahead of where the next entry goes
     * (up to {@link #PRETOUCH_BYTES} ahead), so that the appends that follow do not take their page
     * faults: the first write to a page of a memory-mapped file costs a fault, ~5-10 µs here, and a
     * 35 KB entry spans nine pages. The tickerplant calls it between updates in zero-latency mode and
     * after each timer log+publish tick; it writes nothing a reader can see, and touches nothing unless the volume has 16 MB
     * free above the free-space guard (a page touched on a full volume faults, and the JVM may
     * report that fault later, in other code). Returns the pages touched; never throws.
     */
    default int pretouch(int maxPages) {
        return 0;
    }

    /** How far ahead of the next entry {@link #pretouch} keeps the pages touched. */
    long PRETOUCH_BYTES = 1L << 20;

    /**
     * Forces everything appended so far to disk (fdatasync of the day's queue files: the entries, and
     * Chronicle's header and index pages with them), so that what it covers survives a power cut. The
     * tickerplant calls it once per batch of work, before the acknowledgements that cover the batch
     * (group commit, {@code tick.tp.journal.sync=batch}), never per entry. The first call after opening
     * forces whatever the day's files already held, and the latest earlier day's (a predecessor that died
     * may have left entries in the page cache that the feeds' numbers count). Same thread as appends.
     *
     * @return nanoseconds the force took, or -1 when every entry was forced already (nothing done)
     * @throws IllegalStateException when the force failed; every later call fails too (pages whose
     *         writeback failed may be marked clean: only a restart, reading the journal back, tells what is on disk)
     */
    long sync();

    /** A reader positioned after the entry with {@code sequence} (0 or less: from the first entry); same thread as appends. */
    JournalReader readerAfter(long sequence);

    LocalDate date();

    Path dir();

    /** Sequence of the day's first entry (the previous day's last + 1 while the day is empty). */
    long firstSequence();

    /** Sequence of the day's last entry (the previous day's last while the day is empty). */
    long lastSequence();

    @Override
    void close();
}
