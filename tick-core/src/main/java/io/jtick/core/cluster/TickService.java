package io.jtick.core.cluster;

import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Image;
import io.aeron.cluster.ClusterControl;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.Header;
import io.jtick.core.time.TradingCalendar;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.ReplicatedState;
import io.jtick.core.tp.Tickerplant;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The clustered service: the deterministic state machine every node runs over the committed log, on
 * the service container's thread. It decides what depends on the log alone (the trading day and
 * when it ends, from the log's clock and cluster timers) and hands every entry, in log order, to the
 * node's tickerplant thread, which journals and publishes it ({@link Tickerplant#applyUpdate}): the
 * updates committed in one duty cycle of the service container go over as one task (one wake-up of
 * the event loop and one flush of the subscribers for up to 256 updates, not one each).
 *
 * <p>State: {@code date} (the trading day the log is in; null until the first entry of a new
 * cluster or a snapshot), {@code appliedPosition} (the log position after the last entry of any kind this
 * service has taken: a session's messages, opening and closing, timers, new terms and snapshots, so
 * that it reaches the commit position once the log is still). The first entry of a new cluster opens the day of
 * its timestamp at sequence 0; a snapshot (taken after each end of day, on the leader's request)
 * brings the tickerplant's {@link ReplicatedState} back, and the log replays from there.
 */
final class TickService implements ClusteredService {
    private static final Logger LOG = LoggerFactory.getLogger(TickService.class);
    private static final long END_OF_DAY_TIMER = 1;
    /** Timer log+publish: the tick, a cluster timer, so every node journals the same merged batches at one log position. */
    private static final long TICK_TIMER = 2;

    private final ClusterNode node;
    private final TickerplantSettings tpSettings;
    private final TradingCalendar calendar;
    private final int memberId;
    /** Entries handed to the tickerplant thread at once at most, and bytes (past one entry). */
    private static final int MAX_BATCH_ENTRIES = 256;
    private static final int MAX_BATCH_BYTES = 1 << 20;
    private static final int BATCH_BUFFER = 64 << 10;
    private static final int BATCH_ENTRY_HEADER = 12;

    private final UnsafeBuffer copier = new UnsafeBuffer(0, 0);
    /** The tickerplant thread's view of a batch it applies. */
    private final UnsafeBuffer tpView = new UnsafeBuffer(0, 0);
    private ByteBuf batch;
    private int batched;
    /** Tickerplant thread: the feed name of the last update applied. */
    private String lastFeedName;
    private final ExpandableArrayBuffer snapshotBuffer = new ExpandableArrayBuffer(4096);
    private Cluster cluster;
    private LocalDate date;
    private PublishMode mode;
    private long timerNanos;
    private volatile long appliedPosition = -1;

    TickService(final ClusterNode node, final TickerplantSettings tpSettings, final int memberId) {
        this.node = node;
        this.tpSettings = tpSettings;
        this.calendar = new TradingCalendar(tpSettings.eodTime(), tpSettings.zone());
        this.memberId = memberId;
    }

    long appliedPosition() {
        return appliedPosition;
    }

    @Override
    public void onStart(final Cluster cluster, final Image snapshotImage) {
        this.cluster = cluster;
        if (snapshotImage != null) {
            final ReplicatedState state = readSnapshot(snapshotImage, cluster.idleStrategy());
            // the end-of-day timer comes back with the consensus module's own snapshot (and none may be scheduled in onStart)
            begin(state, false);
            LOG.info("cluster snapshot loaded [member={}, date={}, sequence={}, feeds={}]", memberId, state.date(), state.sequence(),
                state.feeds().size());
        }
    }

    private static ReplicatedState readSnapshot(final Image image, final IdleStrategy idle) {
        final ReplicatedState[] out = new ReplicatedState[1];
        final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            out[0] = LogCodec.snapshotOf(buffer, offset));
        while (out[0] == null) {
            final int n = image.poll(assembler, 1);
            if (n == 0) {
                if (image.isEndOfStream() || image.isClosed()) {
                    throw new IllegalStateException("cluster snapshot ended before its state");
                }
                idle.idle();
            } else {
                idle.reset();
            }
        }
        return out[0];
    }

    /**
     * The tickerplant takes {@code state}; the end of its day and (timer log+publish) its ticks are
     * cluster timers ({@code scheduleTimers}: set them now; after a snapshot they come back with the
     * consensus module's own).
     */
    private void begin(final ReplicatedState state, final boolean scheduleTimers) {
        date = state.date();
        mode = state.mode();
        timerNanos = state.timerNanos();
        handOver();
        node.server().execute(t -> t.applyStart(state));
        if (scheduleTimers) {
            cluster.scheduleTimer(END_OF_DAY_TIMER, calendar.endOfDayNanos(date));
            scheduleTick(cluster.time());
        }
        node.stateApplied();
    }

    /** Timer log+publish: the next tick one timer after {@code from} (log time); other modes: none. */
    private void scheduleTick(final long from) {
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            cluster.scheduleTimer(TICK_TIMER, from + timerNanos);
        } else {
            cluster.cancelTimer(TICK_TIMER);
        }
    }

    /** A new cluster's first entry: its day starts at sequence 0 in the configured mode. */
    private void ensureStarted(final long timestamp) {
        if (date == null) {
            begin(new ReplicatedState(calendar.dateOf(timestamp), 0, tpSettings.mode(), tpSettings.timer().toNanos(), List.of()), true);
            LOG.info("cluster log begins [member={}, date={}]", memberId, date);
        }
    }

    @Override
    public void onSessionOpen(final ClientSession session, final long timestamp) {
        ensureStarted(timestamp);
        appliedPosition = cluster.logPosition();
    }

    @Override
    public void onSessionClose(final ClientSession session, final long timestamp, final CloseReason closeReason) {
        appliedPosition = cluster.logPosition();
    }

    @Override
    public void onSessionMessage(final ClientSession session, final long timestamp, final DirectBuffer buffer, final int offset,
                                 final int length, final Header header) {
        ensureStarted(timestamp);
        switch (buffer.getByte(offset)) {
            case LogCodec.UPDATE -> update(timestamp, buffer, offset, length);
            case LogCodec.END_OF_DAY -> endOfDay(timestamp);
            case LogCodec.MODE -> {
                final PublishMode m = LogCodec.modeOf(buffer, offset);
                final long nanos = LogCodec.timerNanosOf(buffer, offset);
                mode = m;
                timerNanos = nanos;
                handOver();
                node.server().execute(t -> node.server().applyMode(t, m, nanos));
                scheduleTick(timestamp);
            }
            default -> LOG.error("unknown cluster log entry skipped [member={}, type={}, length={}]", memberId, buffer.getByte(offset),
                length);
        }
        appliedPosition = header.position();
    }

    /**
     * A committed update joins this duty cycle's batch: {@code int64 timestamp, int32 length}, then the
     * log entry's bytes, in one pooled buffer that {@link #handOver} gives the tickerplant thread whole.
     */
    private void update(final long timestamp, final DirectBuffer buffer, final int offset, final int length) {
        if (batch == null) {
            batch = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(BATCH_BUFFER, length + BATCH_ENTRY_HEADER));
        }
        batch.ensureWritable(BATCH_ENTRY_HEADER + length);
        batch.writeLongLE(timestamp).writeIntLE(length);
        final int at = batch.writerIndex();
        copier.wrap(batch.memoryAddress() + at, length);
        copier.putBytes(0, buffer, offset, length);
        batch.writerIndex(at + length);
        if (++batched >= MAX_BATCH_ENTRIES || batch.readableBytes() >= MAX_BATCH_BYTES) {
            handOver();
        }
    }

    /** The service container's duty cycle ends: the updates it took go to the tickerplant thread as one task. */
    @Override
    public int doBackgroundWork(final long nowNs) {
        return handOver();
    }

    /**
     * Gives the batched updates to the tickerplant thread as one task (one wake-up of its event loop,
     * one flush of the subscribers), in log order. Called before anything else is given to that thread,
     * so that it sees every entry in log order.
     */
    private int handOver() {
        if (batch == null) {
            return 0;
        }
        final ByteBuf b = batch;
        final int n = batched;
        batch = null;
        batched = 0;
        try {
            node.server().execute(t -> {
                try {
                    apply(t, b);
                } finally {
                    b.release();
                }
            });
        } catch (final RejectedExecutionException e) {
            b.release(); // the tickerplant has closed: the node is going down
            LOG.warn("committed updates not applied, the tickerplant has closed [member={}, updates={}]", memberId, n);
        }
        return n;
    }

    /** On the tickerplant thread: applies a batch's updates in order, then flushes the subscribers once. */
    private void apply(final Tickerplant t, final ByteBuf b) {
        final UnsafeBuffer view = tpView;
        view.wrap(b.memoryAddress(), b.writerIndex());
        int at = b.readerIndex();
        final int end = b.writerIndex();
        while (at < end) {
            final long timestamp = b.getLongLE(at);
            final int length = b.getIntLE(at + 8);
            final int entry = at + BATCH_ENTRY_HEADER;
            final int frameAt = LogCodec.frameOffset(view, entry);
            try {
                t.applyUpdate(feedName(view, entry), b, frameAt, entry + length - frameAt, timestamp);
            } catch (final RuntimeException e) {
                // this node's journal now misses a committed entry: it no longer matches the log
                LOG.error("committed update not applied [member={}]", memberId, e);
                node.diverged("a committed update was not applied: " + e);
            }
            node.committed(LogCodec.origin(view, entry), LogCodec.ingressNanos(view, entry));
            at = entry + length;
        }
        t.flush();
    }

    /** The entry's feed name; the last one's String again when its bytes are the same (a feed's updates come in runs). */
    private String feedName(final UnsafeBuffer view, final int entry) {
        final int n = LogCodec.feedNameLength(view, entry);
        if (n == 0) {
            return null;
        }
        final String last = lastFeedName;
        if (last != null && last.length() == n) {
            final int at = entry + LogCodec.UPDATE_HEADER;
            int k = 0;
            while (k < n && view.getByte(at + k) == (byte) last.charAt(k)) {
                k++;
            }
            if (k == n) {
                return last;
            }
        }
        return lastFeedName = LogCodec.feedName(view, entry);
    }

    @Override
    public void onTimerEvent(final long correlationId, final long timestamp) {
        ensureStarted(timestamp);
        if (correlationId == END_OF_DAY_TIMER) {
            endOfDay(timestamp);
        } else if (correlationId == TICK_TIMER && mode == PublishMode.TIMER_LOG_PUBLISH) {
            handOver();
            node.server().execute(t -> t.applyTimer(timestamp));
            scheduleTick(timestamp);
        }
        appliedPosition = cluster.logPosition();
    }

    /**
     * End of day at this log position: the tickerplant rolls its journal, the next day's end is a new
     * timer, and the leader asks for a snapshot, so that a node that restarts replays the log from
     * the day it is in rather than from the cluster's first entry.
     */
    private void endOfDay(final long timestamp) {
        final LocalDate byClock = calendar.dateOf(timestamp);
        date = byClock.isAfter(date) ? byClock : date.plusDays(1);
        handOver();
        node.server().execute(t -> t.applyEndOfDay(timestamp));
        cluster.scheduleTimer(END_OF_DAY_TIMER, calendar.endOfDayNanos(date));
        if (cluster.role() == Cluster.Role.LEADER) {
            final AtomicCounter toggle = ClusterControl.findControlToggle(cluster.aeron().countersReader(), cluster.context().clusterId());
            if (toggle == null || !ClusterControl.ToggleState.SNAPSHOT.toggle(toggle)) {
                LOG.warn("cluster snapshot not requested after end of day (another action is in progress) [member={}]", memberId);
            }
        }
    }

    @Override
    public void onTakeSnapshot(final ExclusivePublication publication) {
        handOver();
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            // what waits for the tick is journalled here (the same log position on every node): the snapshot holds no batch
            final long at = cluster.time();
            node.server().execute(t -> t.applyTimer(at));
        }
        final ReplicatedState state = node.server().call(Tickerplant::replicatedState);
        final int length = LogCodec.snapshot(snapshotBuffer, state);
        final IdleStrategy idle = cluster.idleStrategy();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (publication.offer(snapshotBuffer, 0, length) < 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("cluster snapshot could not be written within 10 s [member=" + memberId + "]");
            }
            idle.idle();
        }
        appliedPosition = cluster.logPosition();
        LOG.info("cluster snapshot taken [member={}, date={}, sequence={}, bytes={}]", memberId, state.date(), state.sequence(), length);
    }

    @Override
    public void onRoleChange(final Cluster.Role newRole) {
        node.roleChanged(newRole);
    }

    @Override
    public void onNewLeadershipTermEvent(final long leadershipTermId, final long logPosition, final long timestamp,
                                         final long termBaseLogPosition, final int leaderMemberId, final int logSessionId,
                                         final TimeUnit timeUnit, final int appVersion) {
        node.newTerm(leadershipTermId, leaderMemberId);
        appliedPosition = cluster.logPosition();
    }

    @Override
    public void onTerminate(final Cluster cluster) {
        handOver();
        LOG.info("cluster service terminating [member={}]", memberId);
    }
}
