package io.jtick.tp;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.schema.SchemaRegistry;
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
    @DefaultValue("5011") @Min(-1) @Max(65535) int kdbPort,
    @DefaultValue @NotNull Kdb kdb) {

    /** {@code tick.tp.kdb.*}: who may log in on the kdb+ port. */
    public record Kdb(Path users) {
    }

    TickerplantSettings toSettings() {
        final TickerplantSettings s = new TickerplantSettings(host, port, journalDir, PublishMode.parse(mode), timer, eodTime, zone,
            (int) maxFrameLength.toBytes(), maxSubscriberBacklog.toBytes(), broadcast, upstreamHost, upstreamPort, heartbeat, name,
            subscriberBacklogAlert == null ? Math.max(1, maxSubscriberBacklog.toBytes() / 4) : subscriberBacklogAlert.toBytes(),
            feedAckUpdates, feedAckInterval, journalMinFreeSpace.toBytes(), List.of());
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
