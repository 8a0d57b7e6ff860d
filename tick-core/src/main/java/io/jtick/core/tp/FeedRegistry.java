package io.jtick.core.tp;

import io.jtick.core.journal.FeedRuns;
import io.jtick.core.journal.Journal;
import io.jtick.core.wire.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The numbered feeds (protocol 2; what kdb+ leaves to each feed handler's own log): per feed name,
 * which of its update numbers the journal holds, who is connected as that feed, and when it was
 * last acknowledged. Tickerplant thread only.
 *
 * <p>A feed's journalled numbers are kept as {@code journalled} (every number up to it is in the
 * journal, or the feed gave it up) plus, rarely, ranges above it ({@code aboveLo/aboveHi}): in timer
 * log+publish mode each table's batch is journalled in turn as one entry, so a crash or a journal
 * failure in the middle of a tick can leave a feed's later update journalled and an earlier one not. HELLO is
 * answered with {@code journalled}; a resent update already journalled (at or below it, or in a
 * range above it) is dropped and counted.
 *
 * <p>State: {@code feeds} (by name, in order of first sight), and in timer log+publish
 * {@code tickFeeds}/{@code tickNumbers}/{@code tickCount}: the numbered feeds' updates the tick being
 * journalled holds (feed, number), registered once the tick is done ({@link #tickDone}) so the
 * registry never holds a transient hole between two of the tick's entries; {@code scratch} sorts them.
 * An acknowledgement that falls due is not sent at once but marked ({@code Feed.ackHeld}, listed in
 * {@code held}) until the tickerplant ends the batch of work (a feed read, a timer tick) and calls
 * {@link #sendHeld}: after the subscribers' flush, so a FEED_ACK never delays the publish, and one per
 * feed per batch; with {@code tick.tp.journal.sync=batch} after the journal's force
 * ({@link #sendHeldOnceForced}): one force for every feed acknowledged in the batch.
 */
final class FeedRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(FeedRegistry.class);
    private static final int MAX_RANGES = 4096;

    /** One numbered feed. */
    static final class Feed {
        final String name;
        final byte[] nameBytes;
        /** Every number up to it is journalled (or given up by the feed). */
        long journalled;
        private long[] aboveLo = new long[4];
        private long[] aboveHi = new long[4];
        private int ranges;
        /** The next number the current connection is expected to send. */
        long expected = 1;
        /** Frames of this feed waiting in timer batches (timer log+publish), and the lowest and highest of their numbers. */
        int pending;
        long pendingLo;
        long pendingHi;
        long acked = -1;
        long ackedAtNanos;
        /** An acknowledgement fell due and waits for the journal's force ({@link #sendHeld}). */
        boolean ackHeld;
        int unacked;
        UpdateSource connection;
        long updates;
        long duplicates;
        long gaps;
        long connections;

        Feed(final String name) {
            this.name = name;
            this.nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        }

        /** True when update {@code n} of this feed is in the journal. */
        boolean holds(final long n) {
            if (n <= journalled) {
                return true;
            }
            for (int k = 0; k < ranges; k++) {
                if (n >= aboveLo[k] && n <= aboveHi[k]) {
                    return true;
                }
            }
            return false;
        }

        /** Numbers {@code lo..hi} are journalled (or given up). */
        void add(final long lo, final long hi) {
            if (hi <= journalled) {
                return;
            }
            if (lo <= journalled + 1) {
                journalled = hi;
                absorb();
                return;
            }
            int at = 0;
            while (at < ranges && aboveLo[at] < lo) {
                at++;
            }
            if (ranges == aboveLo.length) {
                aboveLo = Arrays.copyOf(aboveLo, ranges * 2);
                aboveHi = Arrays.copyOf(aboveHi, ranges * 2);
            }
            System.arraycopy(aboveLo, at, aboveLo, at + 1, ranges - at);
            System.arraycopy(aboveHi, at, aboveHi, at + 1, ranges - at);
            aboveLo[at] = lo;
            aboveHi[at] = hi;
            ranges++;
            merge();
        }

        /**
         * Gives up the lowest holes while more than {@link #MAX_RANGES} ranges are above
         * {@code journalled}; called after each change that is complete (not between the entries of
         * one timer tick, nor during the start-up scan, whose holes the next entries fill).
         */
        void trim() {
            if (ranges > MAX_RANGES) {
                LOG.error("feed has too many holes in its journalled numbers; giving up the lowest [feed={}, journalled={}, next={}]",
                    name, journalled, aboveLo[ranges - MAX_RANGES - 1]);
                journalled = aboveLo[ranges - MAX_RANGES - 1] - 1;
                absorb();
            }
        }

        private void absorb() {
            int k = 0;
            while (k < ranges && aboveLo[k] <= journalled + 1) {
                journalled = Math.max(journalled, aboveHi[k]);
                k++;
            }
            if (k > 0) {
                System.arraycopy(aboveLo, k, aboveLo, 0, ranges - k);
                System.arraycopy(aboveHi, k, aboveHi, 0, ranges - k);
                ranges -= k;
            }
        }

        private void merge() {
            int w = 0;
            for (int r = 1; r < ranges; r++) {
                if (aboveLo[r] <= aboveHi[w] + 1) {
                    aboveHi[w] = Math.max(aboveHi[w], aboveHi[r]);
                } else {
                    w++;
                    aboveLo[w] = aboveLo[r];
                    aboveHi[w] = aboveHi[r];
                }
            }
            ranges = ranges == 0 ? 0 : w + 1;
        }

        /** Highest number in the journal. */
        long highest() {
            return ranges == 0 ? journalled : aboveHi[ranges - 1];
        }
    }

    private final Map<String, Feed> feeds = new LinkedHashMap<>();
    private final TickerplantCounters counters;
    private final int ackUpdates;
    private Feed[] held = new Feed[8];
    private int heldCount;
    private Feed[] tickFeeds = new Feed[64];
    private long[] tickNumbers = new long[64];
    private long[] scratch = new long[64];
    private int tickCount;

    /**
     * @param ackUpdates a feed is acknowledged after this many journalled updates ({@link TickerplantSettings#feedAckUpdates})
     */
    FeedRegistry(final TickerplantCounters counters, final int ackUpdates) {
        this.counters = counters;
        this.ackUpdates = ackUpdates;
    }

    /**
     * Start-up: rebuilds every feed's journalled numbers from the feed trailers of {@code date}'s
     * journal and of the last day before it that has one. A feed whose numbers there start above 1
     * has the numbers below them journalled on older days when an older day's journal holds the feed
     * (those days are read, newest first, until one does): so a feed that comes back after a restart
     * goes on after its last number, and is not told to send numbers the journal holds again, whose
     * updates would be dropped as resends. Without an older day the gap stays a hole to resend (a
     * first tick of a new feed cut by a crash in timer log+publish).
     */
    void scan(final Path journalDir, final LocalDate date) {
        final List<LocalDate> older = Journal.days(journalDir).filter(d -> d.isBefore(date))
            .sorted(Comparator.reverseOrder()).toList();
        if (!older.isEmpty()) {
            Journal.scanFeeds(journalDir, older.get(0), this::scanned);
        }
        Journal.scanFeeds(journalDir, date, this::scanned);
        final Set<String> below = new HashSet<>();
        for (final Feed f : feeds.values()) {
            if (f.journalled == 0 && f.ranges > 0) {
                below.add(f.name);
            }
        }
        for (int k = 1; k < older.size() && !below.isEmpty(); k++) {
            final Set<String> found = new HashSet<>();
            Journal.scanFeeds(journalDir, older.get(k), (name, first, last) -> {
                if (below.contains(name)) {
                    found.add(name);
                }
            });
            for (final String name : found) {
                final Feed f = feeds.get(name);
                f.add(1, f.aboveLo[0] - 1);
                below.remove(name);
                LOG.info("numbered feed's earlier numbers are in an older journal [feed={}, day={}, journalled={}]", name,
                    older.get(k), f.journalled);
            }
        }
        scanDone();
    }

    /**
     * Update {@code n} of the numbered {@code feed} arrived: false when the journal already holds it (a
     * resend after a reconnect: dropped and counted); numbers it skipped are counted, logged and given up.
     */
    boolean admit(final Feed feed, final long n) {
        if (n < feed.expected || feed.holds(n)) {
            feed.duplicates++;
            counters.feedDuplicate();
            feed.expected = Math.max(feed.expected, n + 1);
            return false;
        }
        if (n > feed.expected) {
            feed.gaps++;
            counters.feedGap();
            LOG.warn("numbered feed skipped updates [feed={}, expected={}, got={}]", feed.name, feed.expected, n);
            feed.add(feed.expected, n - 1);
            feed.trim();
        }
        feed.expected = n + 1;
        return true;
    }

    /**
     * Cluster mode: update {@code n} of {@code feed} was committed to the log; false when the journal
     * already holds it, or (timer log+publish) it waits for the tick (a resend: dropped and counted).
     * Decided on the journalled and waiting numbers alone, which every node rebuilds from the same log,
     * never on a connection's state; numbers a feed skipped stay
     * holes until it resends them.
     */
    boolean admitReplicated(final Feed feed, final long n) {
        if (feed.holds(n) || feed.pending > 0 && n >= feed.pendingLo && n <= feed.pendingHi) {
            feed.duplicates++;
            counters.feedDuplicate();
            return false;
        }
        return true;
    }

    /** Every feed's journalled numbers, for a cluster snapshot. */
    List<ReplicatedState.FeedNumbers> numbers() {
        final List<ReplicatedState.FeedNumbers> out = new ArrayList<>(feeds.size());
        for (final Feed f : feeds.values()) {
            out.add(new ReplicatedState.FeedNumbers(f.name, f.journalled, Arrays.copyOf(f.aboveLo, f.ranges),
                Arrays.copyOf(f.aboveHi, f.ranges)));
        }
        return out;
    }

    /** Cluster mode: every feed's journalled numbers become {@code numbers} (a snapshot's, or none); connections are kept. */
    void restore(final List<ReplicatedState.FeedNumbers> numbers) {
        for (final Feed f : feeds.values()) {
            f.journalled = 0;
            f.ranges = 0;
        }
        for (final ReplicatedState.FeedNumbers n : numbers) {
            final Feed f = feed(n.name());
            f.journalled = n.journalled();
            for (int k = 0; k < n.lo().length; k++) {
                f.add(n.lo()[k], n.hi()[k]);
            }
        }
    }

    /** Update {@code n} of the numbered {@code feed} is journalled: acknowledged every {@code ackUpdates}. */
    void journalled(final Feed feed, final long n, final long nowNanos) {
        feed.add(n, n);
        updatesJournalled(feed, 1, nowNanos);
    }

    /** {@code count} updates of {@code feed}, already added to its numbers, are journalled: trims, counts, acknowledges when due. */
    private void updatesJournalled(final Feed feed, final int count, final long nowNanos) {
        feed.trim();
        feed.updates += count;
        feed.unacked += count;
        if (feed.unacked >= ackUpdates) {
            acknowledge(feed, nowNanos);
        }
    }

    /** Timer log+publish: update {@code n} of {@code feed} is in the entry just journalled; registered at {@link #tickDone}. */
    void tickJournalled(final Feed feed, final long n) {
        if (tickCount == tickFeeds.length) {
            tickFeeds = Arrays.copyOf(tickFeeds, tickCount * 2);
            tickNumbers = Arrays.copyOf(tickNumbers, tickCount * 2);
        }
        tickFeeds[tickCount] = feed;
        tickNumbers[tickCount++] = n;
    }

    /**
     * The tick is journalled: registers the numbered feeds' updates it holds, each feed's numbers in
     * order (its updates to different tables went into different entries), then acknowledges the
     * feeds due.
     */
    void tickDone() {
        if (tickCount == 0) {
            return;
        }
        final long now = System.nanoTime();
        for (int a = 0; a < tickCount; a++) {
            final Feed f = tickFeeds[a];
            if (f == null) {
                continue;
            }
            int m = 0;
            for (int b = a; b < tickCount; b++) {
                if (tickFeeds[b] == f) {
                    if (m == scratch.length) {
                        scratch = Arrays.copyOf(scratch, m * 2);
                    }
                    scratch[m++] = tickNumbers[b];
                    tickFeeds[b] = null;
                }
            }
            Arrays.sort(scratch, 0, m);
            for (int r = 0; r < m;) {
                int e = r;
                while (e + 1 < m && scratch[e + 1] == scratch[e] + 1) {
                    e++;
                }
                f.add(scratch[r], scratch[e]);
                r = e + 1;
            }
            updatesJournalled(f, m, now);
        }
        tickCount = 0;
    }

    /** ", feed=…, feedSequence=…" of the first runs of a journal entry's feed trailer, for an error message. */
    static String describe(final FeedRuns feedRuns) {
        if (feedRuns == null || feedRuns.size() == 0) {
            return "";
        }
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < Math.min(3, feedRuns.size()); r++) {
            sb.append(", feed=").append(new String(feedRuns.name(r), StandardCharsets.US_ASCII))
                .append(", feedSequence=").append(feedRuns.first(r));
            if (feedRuns.last(r) != feedRuns.first(r)) {
                sb.append("..").append(feedRuns.last(r));
            }
        }
        return feedRuns.size() > 3 ? sb.append(", feedRuns=").append(feedRuns.size()).toString() : sb.toString();
    }

    /** The feed called {@code name}, made on first use. */
    Feed feed(final String name) {
        return feeds.computeIfAbsent(name, Feed::new);
    }

    /**
     * A start-up scan found numbers {@code first..last} of feed {@code name} in the journal (journal
     * order). A feed first seen here holds nothing below its first run: when a crash came between
     * two entries of one timer tick, its lower numbers may be in the entry that was never written.
     * A continuing feed's HELLO is then answered lower than its last number, and what it resends
     * below the first run counts as skipped.
     */
    void scanned(final String name, final long first, final long last) {
        feed(name).add(first, last);
    }

    /** The start-up scan is done: every feed's holes are trimmed ({@link Feed#trim}). */
    void scanDone() {
        for (final Feed f : feeds.values()) {
            f.trim();
        }
    }

    /**
     * A connection said HELLO as the numbered feed {@code name}: it becomes the feed's connection
     * (an older one is closed, the newest wins) and is expected to send from {@code journalled + 1}.
     */
    Feed hello(final String name, final UpdateSource from) {
        final Feed f = feed(name);
        final UpdateSource old = f.connection;
        f.connection = from;
        f.connections++;
        f.expected = f.journalled + 1;
        f.acked = -1;
        f.unacked = 0;
        if (old != null && old != from) {
            LOG.warn("feed connected again; closing its older connection [feed={}, journalled={}]", name, f.journalled);
            old.refuse(ErrorCode.FEED_REPLACED, "a newer connection of this feed said hello [feed=" + name + "]");
        }
        return f;
    }

    /** Refuses (and so closes) every numbered feed's connection with {@code code} and {@code reason}. */
    void closeConnections(final ErrorCode code, final String reason) {
        for (final Feed f : feeds.values()) {
            final UpdateSource c = f.connection;
            if (c != null) {
                f.connection = null;
                c.refuse(code, reason);
            }
        }
    }

    /** The connection {@code from} closed. */
    void gone(final Feed f, final UpdateSource from) {
        if (f.connection == from) {
            f.connection = null;
        }
    }

    /**
     * Acknowledgement due: marks the feed for {@link #sendHeld}, which sends FEED_ACK with its journalled
     * number then, if it still has a connection and progress to tell.
     */
    void acknowledge(final Feed f, final long nowNanos) {
        f.unacked = 0;
        f.ackedAtNanos = nowNanos;
        if (f.connection != null && f.acked != f.journalled) {
            hold(f);
        }
    }

    private void hold(final Feed f) {
        if (f.ackHeld) {
            return;
        }
        if (heldCount == held.length) {
            held = Arrays.copyOf(held, heldCount * 2);
        }
        f.ackHeld = true;
        held[heldCount++] = f;
    }

    /** True when acknowledgements wait for the end of the batch. */
    boolean acksHeld() {
        return heldCount > 0;
    }

    /**
     * Group commit: forces {@code journal}, then sends the held acknowledgements; when the force fails
     * they are refused instead (journal-failure: the feeds reconnect and keep what is unacknowledged) and
     * false is returned ({@link DayJournal#failure} says why).
     */
    boolean sendHeldOnceForced(final DayJournal journal) {
        if (!journal.force()) {
            refuseHeld(ErrorCode.JOURNAL_FAILURE, journal.failure());
            return false;
        }
        sendHeld();
        return true;
    }

    /** The end of the batch (under sync=batch, the journal forced): sends every held acknowledgement, with the journalled number now. */
    void sendHeld() {
        for (int k = 0; k < heldCount; k++) {
            final Feed f = held[k];
            held[k] = null;
            f.ackHeld = false;
            if (f.connection != null && f.acked != f.journalled) {
                f.acked = f.journalled;
                f.connection.acknowledge(f.journalled);
            }
        }
        heldCount = 0;
    }

    /** The journal could not be forced: every feed with an acknowledgement held is refused ({@code code}, {@code reason}) instead. */
    void refuseHeld(final ErrorCode code, final String reason) {
        for (int k = 0; k < heldCount; k++) {
            final Feed f = held[k];
            held[k] = null;
            f.ackHeld = false;
            if (f.connection != null) {
                f.connection.refuse(code, reason);
            }
        }
        heldCount = 0;
    }

    /** Acknowledges every connected feed with journalled progress not acknowledged for {@code intervalNanos}. */
    void acknowledgeDue(final long nowNanos, final long intervalNanos) {
        if (feeds.isEmpty()) {
            return;
        }
        for (final Feed f : feeds.values()) {
            if (f.connection != null && f.journalled != f.acked && nowNanos - f.ackedAtNanos >= intervalNanos) {
                acknowledge(f, nowNanos);
            }
        }
    }

    List<TickerplantStatus.FeedStatus> statuses() {
        final List<TickerplantStatus.FeedStatus> out = new ArrayList<>();
        for (final Feed f : feeds.values()) {
            out.add(new TickerplantStatus.FeedStatus(f.name, f.connection != null, f.journalled, f.highest(), f.acked < 0 ? 0 : f.acked,
                f.updates, f.duplicates, f.gaps, f.connections));
        }
        return out;
    }
}
