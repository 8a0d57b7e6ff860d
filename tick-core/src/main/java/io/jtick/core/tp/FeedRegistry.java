package io.jtick.core.tp;

import io.jtick.core.wire.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        /** Frames of this feed waiting in timer batches (timer log+publish). */
        int pending;
        long acked = -1;
        long ackedAtNanos;
        int unacked;
        Tickerplant.UpdateSource connection;
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
                aboveLo = java.util.Arrays.copyOf(aboveLo, ranges * 2);
                aboveHi = java.util.Arrays.copyOf(aboveHi, ranges * 2);
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
    Feed hello(final String name, final Tickerplant.UpdateSource from) {
        final Feed f = feed(name);
        final Tickerplant.UpdateSource old = f.connection;
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

    /** The connection {@code from} closed. */
    void gone(final Feed f, final Tickerplant.UpdateSource from) {
        if (f.connection == from) {
            f.connection = null;
        }
    }

    /** Sends FEED_ACK with the feed's journalled number to its connection, if it has one. */
    void acknowledge(final Feed f, final long nowNanos) {
        f.unacked = 0;
        f.ackedAtNanos = nowNanos;
        if (f.connection != null && f.acked != f.journalled) {
            f.acked = f.journalled;
            f.connection.acknowledge(f.journalled);
        }
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
