package io.jtick.tp;

import io.jtick.boot.PropertyChecks;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.cluster.ClusterSettings;
import io.jtick.core.tp.JournalSync;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.SlowSubscribers;
import io.jtick.core.tp.TickerplantSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;

/**
 * {@code tick.tp.*}: see docs/configuration.md ({@code subscriber-backlog-alert} unset: a quarter of {@code max-subscriber-backlog};
 * {@code upstream-addresses} set: it replaces {@code upstream-host}/{@code upstream-port}, and a bad entry stops start-up naming it).
 */
@ConfigurationProperties("tick.tp")
public record TpProperties(
    @DefaultValue("tp") String name,
    @DefaultValue("127.0.0.1") String host,
    @DefaultValue("5010") int port,
    @DefaultValue("./var/tp/journal") Path journalDir,
    @DefaultValue("zero-latency") String mode,
    @DefaultValue("100ms") Duration timer,
    @DefaultValue("00:00") LocalTime eodTime,
    @DefaultValue("UTC") ZoneId zone,
    @DefaultValue("16MB") DataSize maxFrameLength,
    @DefaultValue("64MB") DataSize maxSubscriberBacklog,
    @DefaultValue("journal") String slowSubscriber,
    @DefaultValue("true") boolean broadcast,
    String upstreamHost,
    @DefaultValue("5010") int upstreamPort,
    String upstreamAddresses,
    Path schemaFile,
    @DefaultValue("0") int extraFloats,
    @DefaultValue("1s") Duration heartbeat,
    DataSize subscriberBacklogAlert,
    @DefaultValue("1000") int feedAckUpdates,
    @DefaultValue("100ms") Duration feedAckInterval,
    @DefaultValue("64MB") DataSize journalMinFreeSpace,
    @DefaultValue("0ms") Duration idleSpin,
    Path unixSocket,
    @DefaultValue Journal journal,
    @DefaultValue("5011") int kdbPort,
    @DefaultValue Kdb kdb,
    @DefaultValue Cluster cluster) {

    /** A bad value stops start-up naming its key. */
    public TpProperties {
        PropertyChecks.range("tick.tp.port", port, 0, 65535);
        PropertyChecks.range("tick.tp.kdb-port", kdbPort, -1, 65535);
        PropertyChecks.range("tick.tp.extra-floats", extraFloats, 0, 1024);
        PropertyChecks.atLeast("tick.tp.feed-ack-updates", feedAckUpdates, 1);
        PropertyChecks.present("tick.tp.journal-dir", journalDir);
        PropertyChecks.present("tick.tp.mode", mode);
        PropertyChecks.present("tick.tp.timer", timer);
        PropertyChecks.present("tick.tp.eod-time", eodTime);
        PropertyChecks.present("tick.tp.zone", zone);
        PropertyChecks.present("tick.tp.max-frame-length", maxFrameLength);
        PropertyChecks.present("tick.tp.max-subscriber-backlog", maxSubscriberBacklog);
        PropertyChecks.present("tick.tp.slow-subscriber", slowSubscriber);
        PropertyChecks.present("tick.tp.heartbeat", heartbeat);
        PropertyChecks.present("tick.tp.feed-ack-interval", feedAckInterval);
        PropertyChecks.present("tick.tp.journal-min-free-space", journalMinFreeSpace);
        PropertyChecks.present("tick.tp.idle-spin", idleSpin);
    }

    /** {@code tick.tp.journal.*}: {@code sync} is what a FEED_ACK promises, {@code none} (journalled) or {@code batch} (on disk). */
    public record Journal(@DefaultValue("none") String sync) {
        public Journal {
            PropertyChecks.present("tick.tp.journal.sync", sync);
        }
    }

    /** {@code tick.tp.kdb.*}: who may log in on the kdb+ port. */
    public record Kdb(Path users) {
    }

    /**
     * {@code tick.tp.cluster.*}: this node in a cluster of tickerplants on Aeron Cluster (docs/ha.md).
     *
     * @param enabled                 off: a single tickerplant (the default)
     * @param memberId                this node's id among {@code members}
     * @param members                 every member as {@code id=host:tpPort:kdbPort:clusterPortBase}, comma-separated
     * @param dir                     this node's cluster directory (consensus state, the archive holding the log)
     * @param aeronDir                the media driver's directory (unset: under /dev/shm where it exists)
     * @param leaderHeartbeatTimeout  silence from the leader that starts an election
     * @param leaderHeartbeatInterval how often the leader says it lives
     * @param electionTimeout         how long a candidate waits for votes
     * @param startupCanvassTimeout   at a cold start, how long to wait to hear from every member
     * @param startTimeout            how long start waits for a leader before it fails, naming the members
     */
    public record Cluster(@DefaultValue("false") boolean enabled, @DefaultValue("0") int memberId, String members,
                          @DefaultValue("./var/tp-cluster") Path dir, Path aeronDir,
                          @DefaultValue("1s") Duration leaderHeartbeatTimeout,
                          @DefaultValue("100ms") Duration leaderHeartbeatInterval,
                          @DefaultValue("500ms") Duration electionTimeout,
                          @DefaultValue("5s") Duration startupCanvassTimeout,
                          @DefaultValue("60s") Duration startTimeout) {

        public Cluster {
            PropertyChecks.present("tick.tp.cluster.dir", dir);
            PropertyChecks.present("tick.tp.cluster.leader-heartbeat-timeout", leaderHeartbeatTimeout);
            PropertyChecks.present("tick.tp.cluster.leader-heartbeat-interval", leaderHeartbeatInterval);
            PropertyChecks.present("tick.tp.cluster.election-timeout", electionTimeout);
            PropertyChecks.present("tick.tp.cluster.startup-canvass-timeout", startupCanvassTimeout);
            PropertyChecks.present("tick.tp.cluster.start-timeout", startTimeout);
        }

        ClusterSettings toSettings() {
            return new ClusterSettings(memberId, ClusterSettings.parseMembers(members), dir, aeronDir, leaderHeartbeatTimeout,
                leaderHeartbeatInterval, electionTimeout, startupCanvassTimeout, startTimeout).validate();
        }
    }

    TickerplantSettings toSettings() {
        final TickerplantSettings s = new TickerplantSettings(host, port, journalDir, PublishMode.parse(mode), timer, eodTime, zone,
            (int) maxFrameLength.toBytes(), maxSubscriberBacklog.toBytes(), broadcast, upstreamHost, upstreamPort, heartbeat, name,
            subscriberBacklogAlert == null ? Math.max(1, maxSubscriberBacklog.toBytes() / 4) : subscriberBacklogAlert.toBytes(),
            feedAckUpdates, feedAckInterval, journalMinFreeSpace.toBytes(), JournalSync.parse(journal.sync()), List.of(),
            SlowSubscribers.parse(slowSubscriber));
        return (upstreamAddresses == null || upstreamAddresses.isBlank() ? s
            : s.withUpstream(TickerplantAddresses.parse("tick.tp.upstream-addresses", upstreamAddresses))).validate();
    }

    /** The kdb+ port ({@code tick.tp.kdb-port}, -1: none) and its logins ({@code tick.tp.kdb.users}, {@code tick.api.*}). */
    KdbSettings kdbSettings(final AccessSettings access) {
        return new KdbSettings(kdbPort, kdb.users(), access).validate();
    }

    SchemaRegistry schemas() throws IOException {
        return SchemaRegistry.load(schemaFile, extraFloats);
    }
}
