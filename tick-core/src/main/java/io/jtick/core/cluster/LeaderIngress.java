package io.jtick.core.cluster;

import io.aeron.Aeron;
import io.aeron.DirectBufferVector;
import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.UpdateSource;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leader's way into the log: an {@link AeronCluster} session over IPC to this node's consensus
 * module, owned by the tickerplant thread. It connects when the node becomes leader and closes when
 * it stops leading; the node's housekeeping polls its egress and keeps it alive.
 *
 * <p>Back pressure: an update the log does not take within a few microseconds waits in the
 * {@link IngressBacklog}, its sender paused, and is offered again every millisecond; later updates
 * queue behind it. The tickerplant thread never spins on a full log, so subscribers and committed
 * entries keep moving meanwhile. After {@link #GIVE_UP_NANOS} without the log taking anything, or when
 * the node stops leading, what waits is refused ({@code no-quorum}, {@code not-leader}). End of day
 * and mode changes (REST, rare) wait out back pressure for up to 500 ms, behind the waiting updates.
 *
 * <p>State, tickerplant thread only: {@code client} (volatile: status reads it), {@code pendingConnect},
 * {@code connecting}, {@code lastSentNanos} (for keep-alives), {@code backlog}, {@code retrying}
 * (the 1 ms task offering the backlog), and the scratch buffers an offer is built from.
 */
final class LeaderIngress {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderIngress.class);
    /** How long end of day or a mode change waits out back pressure before it is refused ({@code no-quorum}). */
    private static final long CONTROL_TIMEOUT_NANOS = 500_000_000L;
    /** How long updates may wait for a back-pressured log before they are refused ({@code no-quorum}). */
    static final long GIVE_UP_NANOS = 5_000_000_000L;
    /** Tries of one offer before the update waits in the backlog (about 20 µs). */
    private static final int SPINS = 20;
    private static final long KEEP_ALIVE_NANOS = 1_000_000_000L;

    private final ClusterNode node;
    private final int memberId;
    private final AtomicLong backPressured;
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[LogCodec.UPDATE_HEADER + 256]);
    private final UnsafeBuffer frameView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer control = new UnsafeBuffer(new byte[64]);
    /** What {@link AeronCluster#offer(DirectBufferVector[])} sends: its session header (it fills [0]), our header, the frame. */
    private final DirectBufferVector[] vectors = {new DirectBufferVector(), new DirectBufferVector(), new DirectBufferVector()};
    private final BackoffIdleStrategy controlIdle = new BackoffIdleStrategy(10, 10, 1_000, 50_000);
    private final IngressBacklog backlog = new IngressBacklog();
    private final IngressBacklog.Offer backlogOffer = this::offer;

    private volatile AeronCluster client;
    private AeronCluster.AsyncConnect pendingConnect;
    private ScheduledFuture<?> connecting;
    private ScheduledFuture<?> retrying;
    private long lastSentNanos;

    LeaderIngress(final ClusterNode node, final int memberId, final AtomicLong backPressured) {
        this.node = node;
        this.memberId = memberId;
        this.backPressured = backPressured;
    }

    /** True once connected: the leader takes feeds. */
    boolean connected() {
        return client != null;
    }

    // ------------------------------------------------------------------ offers

    /** A validated update: offered now, or queued behind a back-pressured log (see the class comment). */
    ErrorCode offerUpdate(final UpdateSource from, final byte[] feed, final long feedSequence, final ByteBuf frame, final int offset,
                          final int length) {
        final AeronCluster c = client;
        if (c == null) {
            return ErrorCode.NO_QUORUM;
        }
        final long now = System.nanoTime();
        if (!backlog.isEmpty()) {
            backlog.add(from, feed, feedSequence, frame, offset, length, now);
            return ErrorCode.NONE;
        }
        long r = 0;
        for (int k = 0; k < SPINS && (r = offer(c, feed, frame, offset, length, now)) <= 0 && backPressure(r); k++) {
            Thread.onSpinWait();
        }
        if (r > 0) {
            lastSentNanos = now;
            return ErrorCode.NONE;
        }
        if (backPressure(r)) {
            backPressured.incrementAndGet();
            backlog.add(from, feed, feedSequence, frame, offset, length, now);
            retrying = node.server().loop().scheduleAtFixedRate(this::retry, 1, 1, TimeUnit.MILLISECONDS);
            return ErrorCode.NONE;
        }
        lost(r);
        return ErrorCode.NO_QUORUM;
    }

    ErrorCode offerEndOfDay() {
        return offerControl(LogCodec.endOfDay(control));
    }

    ErrorCode offerMode(final PublishMode mode, final long timerNanos) {
        return offerControl(LogCodec.mode(control, mode, timerNanos));
    }

    private long offer(final AeronCluster c, final byte[] feed, final ByteBuf frame, final int offset, final int length,
                       final long ingressNanos) {
        final int h = LogCodec.updateHeader(header, memberId, ingressNanos, feed);
        vectors[1].reset(header, 0, h);
        final UnsafeBuffer body;
        if (frame.hasMemoryAddress()) {
            frameView.wrap(frame.memoryAddress() + offset, length);
            body = frameView;
        } else {
            final byte[] copy = new byte[length];
            frame.getBytes(offset, copy);
            body = new UnsafeBuffer(copy);
        }
        vectors[2].reset(body, 0, length);
        return c.offer(vectors);
    }

    /** A waiting entry, offered again. */
    private long offer(final IngressBacklog.Entry e) {
        final AeronCluster c = client;
        if (c == null) {
            return Publication.NOT_CONNECTED;
        }
        final ByteBuf f = e.frame();
        return offer(c, e.feed(), f, f.readerIndex(), f.readableBytes(), e.ingressNanos());
    }

    /** Every millisecond while updates wait: offers them; refuses them when the log has taken nothing for too long. */
    private void retry() {
        final long r = backlog.drain(backlogOffer);
        if (r > 0) {
            lastSentNanos = System.nanoTime();
            stopRetrying();
            return;
        }
        if (!backPressure(r)) {
            lost(r);
            refuseWaiting(ErrorCode.NO_QUORUM, "the cluster log is not reachable from this node: reconnect and resend");
        } else if (backlog.blockedNanos(System.nanoTime()) > GIVE_UP_NANOS) {
            LOG.warn("cluster log back-pressured past the give-up time, refusing what waits [member={}, updates={}, seconds={}]",
                memberId, backlog.size(), GIVE_UP_NANOS / 1_000_000_000L);
            refuseWaiting(ErrorCode.NO_QUORUM, "the cluster log has taken nothing for " + GIVE_UP_NANOS / 1_000_000_000L
                + " s (a follower or the archive is far behind): reconnect and resend");
        }
    }

    /** Refuses every waiting update to its sender, counted by the tickerplant. */
    void refuseWaiting(final ErrorCode code, final String reason) {
        stopRetrying();
        if (backlog.isEmpty()) {
            return;
        }
        final int n = backlog.refuseAll(code, s -> code == ErrorCode.NOT_LEADER ? node.notLeaderReason(s.kdb()) : reason);
        for (int k = 0; k < n; k++) {
            node.server().tickerplant().countError(code);
        }
    }

    private void stopRetrying() {
        if (retrying != null) {
            retrying.cancel(false);
            retrying = null;
        }
    }

    /** End of day or a mode change: after what waits, waiting out back pressure for up to 500 ms. */
    private ErrorCode offerControl(final int length) {
        final long deadline = System.nanoTime() + CONTROL_TIMEOUT_NANOS;
        controlIdle.reset();
        while (true) {
            final AeronCluster c = client;
            if (c == null) {
                return ErrorCode.NO_QUORUM;
            }
            long r = backlog.drain(backlogOffer);
            if (r > 0) {
                stopRetrying();
                r = c.offer(control, 0, length);
                if (r > 0) {
                    lastSentNanos = System.nanoTime();
                    return ErrorCode.NONE;
                }
            }
            if (!backPressure(r) || System.nanoTime() - deadline > 0) {
                LOG.warn("cluster log did not take an entry [member={}, result={}]", memberId, Publication.errorString(r));
                if (!backPressure(r)) {
                    lost(r);
                }
                return ErrorCode.NO_QUORUM;
            }
            controlIdle.idle();
        }
    }

    private static boolean backPressure(final long r) {
        return r == Publication.BACK_PRESSURED || r == Publication.ADMIN_ACTION;
    }

    /** The log refused for good (not connected, closed, full): the session goes; the next housekeeping reconnects if still leader. */
    private void lost(final long r) {
        LOG.warn("cluster log did not take an entry, closing the ingress session [member={}, result={}]", memberId,
            Publication.errorString(r));
        close();
    }

    // ------------------------------------------------------------------ connect, keep alive, close

    /** This node leads: connects unless connected or connecting. */
    void connect(final Aeron aeron, final long term) {
        if (client != null || pendingConnect != null || aeron == null) {
            return;
        }
        pendingConnect = AeronCluster.asyncConnect(new AeronCluster.Context()
            .aeron(aeron)
            .ownsAeronClient(false)
            .ingressChannel("aeron:ipc")
            .egressChannel("aeron:ipc")
            .messageTimeoutNs(TimeUnit.SECONDS.toNanos(5)));
        connecting = node.server().loop().scheduleAtFixedRate(() -> pollConnect(term), 0, 1, TimeUnit.MILLISECONDS);
    }

    private void pollConnect(final long term) {
        if (pendingConnect == null) {
            cancelConnecting();
            return;
        }
        try {
            final AeronCluster c = pendingConnect.poll();
            if (c != null) {
                pendingConnect = null;
                cancelConnecting();
                if (node.isLeader()) {
                    client = c;
                    lastSentNanos = System.nanoTime();
                    LOG.info("cluster ingress connected [member={}, session={}, term={}]", memberId, c.clusterSessionId(), term);
                } else {
                    c.close();
                }
            }
        } catch (final RuntimeException e) {
            LOG.warn("cluster ingress connect failed, trying again [member={}]: {}", memberId, e.toString());
            CloseHelper.quietClose(pendingConnect);
            pendingConnect = null;
            cancelConnecting();
            if (node.isLeader()) {
                node.server().loop().schedule(node::followRole, 50, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void cancelConnecting() {
        if (connecting != null) {
            connecting.cancel(false);
            connecting = null;
        }
    }

    /** Housekeeping (every 50 ms): polls the egress, keeps the session alive; false when there is no session (connect again if leader). */
    boolean housekeeping() {
        final AeronCluster c = client;
        if (c == null) {
            return pendingConnect != null;
        }
        if (c.isClosed()) {
            client = null;
            return false;
        }
        c.pollEgress();
        if (System.nanoTime() - lastSentNanos > KEEP_ALIVE_NANOS && c.sendKeepAlive()) {
            lastSentNanos = System.nanoTime();
        }
        return true;
    }

    /** Closes the session (and a connect under way); what waits is refused by the caller ({@link #refuseWaiting}). */
    void close() {
        if (pendingConnect != null) {
            CloseHelper.quietClose(pendingConnect);
            pendingConnect = null;
            cancelConnecting();
        }
        final AeronCluster c = client;
        if (c != null) {
            client = null;
            CloseHelper.quietClose(c);
        }
    }

    /** Closing the node: refuses what waits and closes the session. */
    void shutdown() {
        refuseWaiting(ErrorCode.NO_QUORUM, "this tickerplant node is shutting down: reconnect and resend");
        close();
    }
}
