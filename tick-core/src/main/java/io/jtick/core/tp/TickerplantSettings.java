package io.jtick.core.tp;

import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.LeaderHint.Address;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * Everything a tickerplant needs to start (the core half of STYLE.md's two configuration layers;
 * tp-service binds {@code tick.tp.*} onto it). {@link #validate()} names the first bad value.
 *
 * @param upstreamHost          non-null makes this a chained TP fed by the TP at upstreamHost:upstreamPort
 * @param upstreamAddresses     a chained TP's upstream tickerplants when there are several (a TP cluster's members; the first
 *                              is upstreamHost:upstreamPort): its subscription moves to the next when one is lost; empty: the one
 * @param maxSubscriberBacklog  unsent bytes after which a subscriber is slow: served from the journal or disconnected
 *                              ({@code slowSubscribers})
 * @param subscriberBacklogAlert unsent bytes after which a subscriber is reported slow (counted, logged once per
 *                              episode); at most {@code maxSubscriberBacklog}
 * @param feedAckUpdates        a numbered feed is acknowledged after this many journalled updates...
 * @param feedAckInterval       ...or this long after its last acknowledgement, whichever comes first
 * @param journalMinFreeBytes   updates are refused (journal-failure) while the journal's volume has less free
 *                              space than this, before a write into a full memory-mapped file can fail; 0 = no check
 * @param journalSync           what a FEED_ACK promises: {@link JournalSync#NONE} journalled (page cache), or
 *                              {@link JournalSync#BATCH} on disk (the journal forced first, once per batch of work)
 * @param slowSubscribers       what becomes of a subscriber past {@code maxSubscriberBacklog} (kdb+ subscribers are
 *                              always disconnected)
 */
public record TickerplantSettings(String host, int port, Path journalDir, PublishMode mode, Duration timer,
                                  LocalTime eodTime, ZoneId zone, int maxFrameLength, long maxSubscriberBacklog,
                                  boolean broadcast, String upstreamHost, int upstreamPort, Duration heartbeat,
                                  String name, long subscriberBacklogAlert, int feedAckUpdates, Duration feedAckInterval,
                                  long journalMinFreeBytes, JournalSync journalSync,
                                  List<Address> upstreamAddresses, SlowSubscribers slowSubscribers) {

    public TickerplantSettings {
        upstreamAddresses = upstreamAddresses == null ? List.of() : List.copyOf(upstreamAddresses);
    }

    public static TickerplantSettings defaults(final Path journalDir) {
        return new TickerplantSettings("127.0.0.1", 5010, journalDir, PublishMode.ZERO_LATENCY, Duration.ofMillis(100),
            LocalTime.MIDNIGHT, ZoneId.of("UTC"), FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH, 64L << 20, true, null, 5010,
            Duration.ofSeconds(1), "tp", 16L << 20, 1000, Duration.ofMillis(100), 64L << 20, JournalSync.NONE, List.of(),
            SlowSubscribers.JOURNAL);
    }

    /** Why a chained TP refuses timer log+publish. */
    static final String CHAINED_LOG_PUBLISH = "a chained tickerplant cannot run timer-log-publish: it journals the upstream's"
        + " updates under the upstream's sequence numbers, which merged batches of several tables cannot keep in order; use"
        + " timer-publish (journalled as they arrive, published on the timer)";

    public TickerplantSettings validate() {
        Objects.requireNonNull(journalDir, "journalDir");
        Objects.requireNonNull(mode, "mode");
        if (chained() && mode == PublishMode.TIMER_LOG_PUBLISH) {
            throw new IllegalArgumentException(CHAINED_LOG_PUBLISH);
        }
        if (upstreamAddresses != null && !upstreamAddresses.isEmpty()) {
            TickerplantAddresses.check("upstream", upstreamAddresses);
            if (!upstreamAddresses.get(0).equals(new Address(upstreamHost, upstreamPort))) {
                throw new IllegalArgumentException("the first upstream address must be upstreamHost:upstreamPort [upstreamHost="
                    + upstreamHost + ", upstreamPort=" + upstreamPort + ", upstreamAddresses="
                    + TickerplantAddresses.format(upstreamAddresses) + "]");
            }
        }
        Objects.requireNonNull(eodTime, "eodTime");
        Objects.requireNonNull(zone, "zone");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range [port=" + port + "]");
        }
        if (timer == null || timer.toMillis() < 1 || timer.toMinutes() > 60) {
            throw new IllegalArgumentException("timer must be 1 ms .. 60 min [timer=" + timer + "]");
        }
        if (maxFrameLength < 1024) {
            throw new IllegalArgumentException("maxFrameLength too small [maxFrameLength=" + maxFrameLength + "]");
        }
        if (maxSubscriberBacklog < maxFrameLength) {
            throw new IllegalArgumentException("maxSubscriberBacklog must hold at least one frame [maxSubscriberBacklog="
                + maxSubscriberBacklog + ", maxFrameLength=" + maxFrameLength + "]");
        }
        if (subscriberBacklogAlert < 1 || subscriberBacklogAlert > maxSubscriberBacklog) {
            throw new IllegalArgumentException("subscriberBacklogAlert must be 1 .. maxSubscriberBacklog [subscriberBacklogAlert="
                + subscriberBacklogAlert + ", maxSubscriberBacklog=" + maxSubscriberBacklog + "]");
        }
        if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("heartbeat must be positive [heartbeat=" + heartbeat + "]");
        }
        if (feedAckUpdates < 1) {
            throw new IllegalArgumentException("feedAckUpdates must be at least 1 [feedAckUpdates=" + feedAckUpdates + "]");
        }
        if (feedAckInterval == null || feedAckInterval.toMillis() < 1) {
            throw new IllegalArgumentException("feedAckInterval must be at least 1 ms [feedAckInterval=" + feedAckInterval + "]");
        }
        if (journalSync == null) {
            throw new IllegalArgumentException("journalSync must be none or batch [journalSync=null]");
        }
        if (slowSubscribers == null) {
            throw new IllegalArgumentException("slowSubscribers must be journal or disconnect [slowSubscribers=null]");
        }
        if (journalMinFreeBytes < 0) {
            throw new IllegalArgumentException("journalMinFreeBytes must not be negative [journalMinFreeBytes=" + journalMinFreeBytes
                + "]");
        }
        return this;
    }

    public boolean chained() {
        return upstreamHost != null && !upstreamHost.isBlank();
    }

    public TickerplantSettings withPort(final int p) {
        return new TickerplantSettings(host, p, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withMode(final PublishMode m, final Duration t) {
        return new TickerplantSettings(host, port, journalDir, m, t, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withEndOfDay(final LocalTime t, final ZoneId z) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, t, z, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, slowSubscribers);
    }

    /** The disconnect level; the alert level becomes a quarter of it (at least one byte) unless it is already lower. */
    public TickerplantSettings withBacklog(final long maxBacklog) {
        return withBacklog(Math.min(subscriberBacklogAlert, Math.max(1, maxBacklog / 4)), maxBacklog);
    }

    /** The alert and the disconnect levels of subscriber backlog. */
    public TickerplantSettings withBacklog(final long alert, final long maxBacklog) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, alert, feedAckUpdates, feedAckInterval, journalMinFreeBytes,
            journalSync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withBroadcast(final boolean b) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            b, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withMaxFrameLength(final int n) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, n, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withUpstream(final String h, final int p) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, h, p, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval, journalMinFreeBytes,
            journalSync, List.of(), slowSubscribers);
    }

    /** A chained TP fed by the first of {@code upstream} that serves it (the members of a TP cluster, say): see {@link #upstream()}. */
    public TickerplantSettings withUpstream(final List<Address> upstream) {
        final Address first = upstream.isEmpty() ? null : upstream.get(0);
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, first == null ? null : first.host(), first == null ? upstreamPort : first.port(), heartbeat, name,
            subscriberBacklogAlert, feedAckUpdates, feedAckInterval, journalMinFreeBytes, journalSync, upstream, slowSubscribers);
    }

    /**
     * A chained TP's upstream tickerplants, in the order its subscription tries them: {@code upstreamAddresses}
     * when set (the first is also {@code upstreamHost:upstreamPort}), else {@code upstreamHost:upstreamPort}; empty when not chained.
     */
    public List<Address> upstream() {
        if (upstreamAddresses != null && !upstreamAddresses.isEmpty()) {
            return upstreamAddresses;
        }
        return chained() ? List.of(new Address(upstreamHost, upstreamPort)) : List.of();
    }

    /** When numbered feeds are acknowledged: every {@code updates} journalled updates, or {@code interval} after the last. */
    public TickerplantSettings withFeedAcks(final int updates, final Duration interval) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, updates, interval, journalMinFreeBytes,
            journalSync, upstreamAddresses, slowSubscribers);
    }

    /** What a FEED_ACK promises: journalled ({@link JournalSync#NONE}) or on disk ({@link JournalSync#BATCH}). */
    public TickerplantSettings withJournalSync(final JournalSync sync) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, sync, upstreamAddresses, slowSubscribers);
    }

    public TickerplantSettings withJournalMinFree(final long bytes) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval, bytes,
            journalSync, upstreamAddresses, slowSubscribers);
    }

    /** What becomes of a subscriber past {@code maxSubscriberBacklog}: served from the journal, or disconnected. */
    public TickerplantSettings withSlowSubscribers(final SlowSubscribers policy) {
        return new TickerplantSettings(host, port, journalDir, mode, timer, eodTime, zone, maxFrameLength, maxSubscriberBacklog,
            broadcast, upstreamHost, upstreamPort, heartbeat, name, subscriberBacklogAlert, feedAckUpdates, feedAckInterval,
            journalMinFreeBytes, journalSync, upstreamAddresses, policy);
    }
}
