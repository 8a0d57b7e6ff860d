package io.jtick.feedsim;

import io.jtick.boot.PropertyChecks;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.feed.FeedSupervisor;
import io.jtick.core.wire.LeaderHint.Address;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * feed-sim settings ({@code tick.feed.*}, see docs/configuration.md). The feed shape here is the
 * default of {@code POST /api/feed/start} ({@link #feedSettings(String)}) and what {@code autostart} runs.
 *
 * @param tpHost    tickerplant host
 * @param tpPort    tickerplant feed port
 * @param tpAddresses the tickerplants, {@code host:port,host:port} (a TP cluster's members: the feed follows the leader);
 *                  when set it replaces {@code tpHost}/{@code tpPort}
 * @param autostart start a synthetic feed with these settings once the app is ready (retrying the TP connection)
 * @param table     trade or quote
 * @param r         rows per update
 * @param u         updates per timer tick
 * @param t         timer period, ms
 * @param syms      number of synthetic syms
 * @param ex        extra float columns
 * @param seed      random seed of the synthetic feed
 * @param dataDir   where the replay data sets live (the shared data folder)
 * @param runsDir   where profiling runs are stored, one JSON file per run (reloaded at start)
 * @param labDir    where profiling labs put their temporary journals; empty: the system temp directory
 * @param paperFigures the KX white paper's figures (CSV) put next to ours; a missing file means no comparison
 * @param jitWarmup full-speed throwaway labs before a run's first entry (JIT warm-up); 0 = none
 * @param name      the feed's name in its HELLO: the tickerplant keeps this feed's update numbers under it
 * @param numbered  number the updates and resend after a reconnect (protocol 2); false: protocol 1, nothing resent
 * @param buffer    bytes of unacknowledged updates kept for resending
 * @param whenFull  block (wait for acknowledgements, drop nothing) or fail (drop the tick's rows, counted) when the buffer is full
 * @param blockTimeout longest one blocked send waits before the feed checks for a stop and waits again
 * @param reconnectMin first wait before reconnecting to the tickerplant, doubling after each failed attempt...
 * @param reconnectMax ...up to this
 * @param hdbHost   the HDB whose replay port the {@code hdb} source reads
 * @param hdbReplayPort that HDB's replay port ({@code tick.hdb.replay-port})
 */
@ConfigurationProperties("tick.feed")
public record FeedProperties(
    @DefaultValue("127.0.0.1") String tpHost,
    @DefaultValue("5010") int tpPort,
    String tpAddresses,
    @DefaultValue("false") boolean autostart,
    @DefaultValue("trade") String table,
    @DefaultValue("10") int r,
    @DefaultValue("1") int u,
    @DefaultValue("1") int t,
    @DefaultValue("100") int syms,
    @DefaultValue("0") int ex,
    @DefaultValue("42") long seed,
    @DefaultValue("../shared/data") Path dataDir,
    @DefaultValue("./var/runs") Path runsDir,
    @DefaultValue("") String labDir,
    @DefaultValue("../shared/reference/kx-tick-profiling.csv") Path paperFigures,
    @DefaultValue("2s") Duration jitWarmup,
    @DefaultValue("feed-sim") String name,
    @DefaultValue("true") boolean numbered,
    @DefaultValue("64MB") DataSize buffer,
    @DefaultValue("block") String whenFull,
    @DefaultValue("1s") Duration blockTimeout,
    @DefaultValue("100ms") Duration reconnectMin,
    @DefaultValue("5s") Duration reconnectMax,
    @DefaultValue("127.0.0.1") String hdbHost,
    @DefaultValue("5012") int hdbReplayPort) {

    /** A bad value stops start-up naming its key. */
    public FeedProperties {
        PropertyChecks.text("tick.feed.tp-host", tpHost);
        PropertyChecks.range("tick.feed.tp-port", tpPort, 1, 65535);
        PropertyChecks.matches("tick.feed.table", table, "trade|quote");
        PropertyChecks.atLeast("tick.feed.r", r, 1);
        PropertyChecks.atLeast("tick.feed.u", u, 1);
        PropertyChecks.atLeast("tick.feed.t", t, 1);
        PropertyChecks.atLeast("tick.feed.syms", syms, 1);
        PropertyChecks.range("tick.feed.ex", ex, 0, 1024);
        PropertyChecks.present("tick.feed.data-dir", dataDir);
        PropertyChecks.present("tick.feed.runs-dir", runsDir);
        PropertyChecks.present("tick.feed.paper-figures", paperFigures);
        PropertyChecks.present("tick.feed.jit-warmup", jitWarmup);
        PropertyChecks.text("tick.feed.name", name);
        if (name.length() > 255) {
            throw new IllegalArgumentException("longer than 255 characters [key=tick.feed.name, length=" + name.length() + "]");
        }
        PropertyChecks.present("tick.feed.buffer", buffer);
        PropertyChecks.matches("tick.feed.when-full", whenFull, "block|fail");
        PropertyChecks.present("tick.feed.block-timeout", blockTimeout);
        PropertyChecks.present("tick.feed.reconnect-min", reconnectMin);
        PropertyChecks.present("tick.feed.reconnect-max", reconnectMax);
        PropertyChecks.text("tick.feed.hdb-host", hdbHost);
        PropertyChecks.range("tick.feed.hdb-replay-port", hdbReplayPort, 1, 65535);
    }

    /**
     * The tickerplant, how the feed connects (presenting {@code token}, the API token, to the TP and the
     * HDB's replay port; null: none), and the feed a start request gets by default.
     */
    FeedSupervisor.Settings feedSettings(final String token) {
        final FeedPublisher.Settings connection = new FeedPublisher.Settings(tickerplants(), name, numbered, buffer.toBytes(),
            "fail".equals(whenFull) ? FeedPublisher.WhenFull.FAIL : FeedPublisher.WhenFull.BLOCK, blockTimeout, reconnectMin,
            reconnectMax, token);
        return new FeedSupervisor.Settings(connection, table, r, u, t, syms, ex, seed, dataDir, hdbHost, hdbReplayPort);
    }

    /** The tickerplants: {@code tp-addresses} when set, else {@code tp-host:tp-port}; a bad entry stops start-up naming it. */
    List<Address> tickerplants() {
        return tpAddresses == null || tpAddresses.isBlank() ? List.of(new Address(tpHost, tpPort))
            : TickerplantAddresses.parse("tick.feed.tp-addresses", tpAddresses);
    }
}
