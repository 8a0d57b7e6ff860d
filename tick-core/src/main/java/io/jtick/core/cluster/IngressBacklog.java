package io.jtick.core.cluster;

import io.jtick.core.tp.UpdateSource;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The leader's feed updates that the log did not take at once because it is back-pressured (a
 * follower or the archive is behind): kept in arrival order, each a copy of its frame, while their
 * senders are paused (their sockets are not read, so TCP paces the feeds, as a single tickerplant's
 * busy thread would). {@link ClusterNode} offers them again on the tickerplant thread every
 * millisecond, and every update that arrives meanwhile queues behind them, so that no update overtakes
 * another; once the log has taken them all the senders are read again. If they cannot be offered
 * (this node stops leading, or the log takes nothing for {@link ClusterNode}'s give-up time) they are
 * refused to their senders, whose connections close: a numbered feed resends them from the leader's
 * FEED_ACK, as after any refusal. Tickerplant thread only.
 *
 * <p>State: {@code entries} (oldest first), {@code paused} (the senders not read meanwhile),
 * {@code blockedSince} (when the oldest entry was queued).
 */
final class IngressBacklog {

    /** One update waiting for the log: its sender (null: nobody to pause or tell), feed name and number, frame, arrival time. */
    record Entry(UpdateSource from, byte[] feed, long feedSequence, ByteBuf frame, long ingressNanos) {
    }

    /** Offers one entry to the log: Aeron's result (positive: taken). */
    interface Offer {
        long offer(Entry e);
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final Set<UpdateSource> paused = Collections.newSetFromMap(new IdentityHashMap<>());
    private long blockedSince;

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    /** Nanoseconds since the oldest waiting entry was queued; 0 when none waits. */
    long blockedNanos(final long now) {
        return entries.isEmpty() ? 0 : now - blockedSince;
    }

    /** Queues a copy of the update and pauses its sender. */
    void add(final UpdateSource from, final byte[] feed, final long feedSequence, final ByteBuf frame, final int offset,
             final int length, final long ingressNanos) {
        final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length);
        copy.writeBytes(frame, offset, length);
        if (entries.isEmpty()) {
            blockedSince = ingressNanos;
        }
        entries.add(new Entry(from, feed, feedSequence, copy, ingressNanos));
        if (from != null && paused.add(from)) {
            from.pauseInput();
        }
    }

    /**
     * Offers the waiting entries in order while the log takes them. Returns 1 when all were taken (the
     * senders are read again), or the result of the offer that was not taken (0 or negative, Aeron's
     * codes): the entries from that one on keep waiting.
     */
    long drain(final Offer log) {
        while (!entries.isEmpty()) {
            final Entry e = entries.peekFirst();
            final long r = log.offer(e);
            if (r <= 0) {
                return r;
            }
            entries.pollFirst();
            e.frame().release();
            blockedSince = System.nanoTime();
        }
        resume();
        return 1;
    }

    /**
     * Refuses every waiting entry: each sender is told once ({@code reason} gives the words for a native
     * or a kdb+ sender) and its connection closes. Returns how many updates were refused.
     */
    int refuseAll(final ErrorCode code, final java.util.function.Function<UpdateSource, String> reason) {
        final int n = entries.size();
        final Set<UpdateSource> told = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Entry e; (e = entries.pollFirst()) != null; ) {
            e.frame().release();
            if (e.from() != null && told.add(e.from())) {
                e.from().refuse(code, reason.apply(e.from()));
            }
        }
        resume();
        return n;
    }

    private void resume() {
        for (final UpdateSource s : paused) {
            s.resumeInput();
        }
        paused.clear();
    }
}
