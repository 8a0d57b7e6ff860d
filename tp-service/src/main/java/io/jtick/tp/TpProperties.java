package io.jtick.tp;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.cluster.ClusterSettings;
import io.jtick.core.tp.JournalSync;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.TickerplantSettings;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

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
@Validated
@ConfigurationProperties("tick.tp")
public record TpProperties(
    @DefaultValue("tp") String name,
    @DefaultValue("127.0.0.1") String host,
    @DefaultValue("5010") @Min(0) @Max(65535) int port,
    @DefaultValue("./var/tp/journal") @NotNull Path journalDir,
    @DefaultValue("zero-latency") @NotNull String mode,
    @DefaultValue("100ms") @NotNull Duration timer,
    @DefaultValue("00:00") @NotNull LocalTime eodTime,
    @DefaultValue("UTC") @NotNull ZoneId zone,
    @DefaultValue("16MB") @NotNull DataSize maxFrameLength,
    @DefaultValue("64MB") @NotNull DataSize maxSubscriberBacklog,
    @DefaultValue("true") boolean broadcast,
    String upstreamHost,
    @DefaultValue("5010") int upstreamPort,
    String upstreamAddresses,
    Path schemaFile,
    @DefaultValue("0") @Min(0) @Max(1024) int extraFloats,
    @DefaultValue("1s") @NotNull Duration heartbeat,
    DataSize subscriberBacklogAlert,
    @DefaultValue("1000") @Min(1) int feedAckUpdates,
    @DefaultValue("100ms") @NotNull Duration feedAckInterval,
    @DefaultValue("64MB") @NotNull DataSize journalMinFreeSpace,
    @DefaultValue("0ms") @NotNull Duration idleSpin,
    @DefaultValue @NotNull Journal journal,
    @DefaultValue("5011") @Min(-1) @Max(65535) int kdbPort,
    @DefaultValue @NotNull Kdb kdb,
    @DefaultValue @NotNull Cluster cluster) {

    /** {@code tick.tp.journal.*}: {@code sync} is what a FEED_ACK promises, {@code none} (journalled) or {@code batch} (on disk). */
    public record Journal(@DefaultValue("none") @NotNull String sync) {
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
                          @DefaultValue("./var/tp-cluster") @NotNull Path dir, Path aeronDir,
                          @DefaultValue("1s") @NotNull Duration leaderHeartbeatTimeout,
                          @DefaultValue("100ms") @NotNull Duration leaderHeartbeatInterval,
                          @DefaultValue("500ms") @NotNull Duration electionTimeout,
                          @DefaultValue("5s") @NotNull Duration startupCanvassTimeout,
                          @DefaultValue("60s") @NotNull Duration startTimeout) {

        ClusterSettings toSettings() {
            return new ClusterSettings(memberId, ClusterSettings.parseMembers(members), dir, aeronDir, leaderHeartbeatTimeout,
                leaderHeartbeatInterval, electionTimeout, startupCanvassTimeout, startTimeout).validate();
        }
    }

    TickerplantSettings toSettings() {
        final TickerplantSettings s = new TickerplantSettings(host, port, journalDir, PublishMode.parse(mode), timer, eodTime, zone,
            (int) maxFrameLength.toBytes(), maxSubscriberBacklog.toBytes(), broadcast, upstreamHost, upstreamPort, heartbeat, name,
            subscriberBacklogAlert == null ? Math.max(1, maxSubscriberBacklog.toBytes() / 4) : subscriberBacklogAlert.toBytes(),
            feedAckUpdates, feedAckInterval, journalMinFreeSpace.toBytes(), JournalSync.parse(journal.sync()), List.of());
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
