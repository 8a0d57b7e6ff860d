package io.jtick.core.tp;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The two slow-subscriber levels of {@link SubscriberRegistry}. Past {@code subscriberBacklogAlert}
 * unsent bytes a subscriber is flagged, counted and logged once (the episode ends when its backlog is
 * back under half the level). Past {@code maxSubscriberBacklog} a live subscriber is, by
 * {@link TickerplantSettings#slowSubscribers()}, either to be served from the journal (the registry
 * switches it once the publish it is in has ended) or disconnected: its unsent backlog is dropped (all
 * but the frame already partly on the wire), ERROR slow-subscriber is written next, and the connection
 * closes once that is sent (or after {@link #ERROR_GRACE_MILLIS}), so a subscriber that reads again finds
 * the error right after the data it had been sent. kdb+ subscribers are always disconnected (a kdb+
 * client replays nothing from the TP). Tickerplant thread only.
 */
final class BacklogPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(BacklogPolicy.class);
    /** How long a slow subscriber's connection stays open for its ERROR frame to leave. */
    static final long ERROR_GRACE_MILLIS = 10_000;

    private final TickerplantSettings settings;
    private final TickerplantCounters counters;
    private final ByteBufAllocator alloc;

    BacklogPolicy(final TickerplantSettings settings, final TickerplantCounters counters, final ByteBufAllocator alloc) {
        this.settings = settings;
        this.counters = counters;
        this.alloc = alloc;
    }

    /**
     * {@code s} was written to: flags an alert episode past the alert level, and past the limit disconnects
     * it or returns true, when it is a live subscriber to be served from the journal.
     */
    boolean written(final Subscriber s) {
        final long backlog = s.backlogBytes();
        if (backlog <= settings.subscriberBacklogAlert()) {
            return false;
        }
        if (!s.alert) {
            s.alert = true;
            counters.subscriberAlert();
            LOG.warn("slow subscriber [id={}, name={}, backlogBytes={}, alert={}, limit={}]", s.id, s.name, backlog,
                settings.subscriberBacklogAlert(), settings.maxSubscriberBacklog());
        }
        if (backlog <= settings.maxSubscriberBacklog()) {
            return false;
        }
        if (settings.slowSubscribers() == SlowSubscribers.JOURNAL && !s.kdb) {
            // one catching up already reads the journal at its socket's pace
            return s.live;
        }
        disconnect(s, "subscriber fell behind: backlog over the limit [limit=" + settings.maxSubscriberBacklog() + "]");
        return false;
    }

    /** Ends a subscriber's alert episode once its backlog is under half the alert level. */
    void clearAlert(final Subscriber s) {
        if (s.alert && s.backlogBytes() <= settings.subscriberBacklogAlert() / 2) {
            s.alert = false;
            LOG.info("subscriber caught up [id={}, name={}, backlogBytes={}]", s.id, s.name, s.backlogBytes());
        }
    }

    /**
     * Disconnects a subscriber as slow: drops its unsent backlog but the frame partly on the wire,
     * then ERROR slow-subscriber, closing once that has been written (or after the grace period).
     */
    void disconnect(final Subscriber s, final String reason) {
        if (s.closing) {
            return;
        }
        s.closing = true;
        counters.subscriberSlow();
        counters.error(ErrorCode.SLOW_SUBSCRIBER);
        final long backlog = s.backlogBytes();
        final long dropped = OutboundBacklog.dropAllButCurrent(s.channel) + s.dropPending();
        LOG.warn("disconnecting slow subscriber [id={}, name={}, backlogBytes={}, droppedBytes={}, limit={}]: {}", s.id, s.name, backlog,
            dropped, settings.maxSubscriberBacklog(), reason);
        s.closeCatchUp();
        final Channel ch = s.channel;
        // half-close once the error is written: the socket stays this process's until the peer has read everything
        // (a fully closed socket left with unsent data is an orphan the kernel may give up on), then closes on its
        // side, or the grace period ends
        // a kdb+ client has no error message to read: it sees the end of the stream after the message on the wire
        final ByteBuf last = s.kdb ? Unpooled.EMPTY_BUFFER : ControlFrames.error(alloc, ErrorCode.SLOW_SUBSCRIBER, reason);
        ch.writeAndFlush(last).addListener(f -> {
            if (ch instanceof DuplexChannel d && f.isSuccess()) {
                d.shutdownOutput();
            } else {
                ch.close();
            }
        });
        ch.eventLoop().schedule(() -> {
            ch.close();
        }, ERROR_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }
}
