package io.jtick.systest;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.compression.TableLoader;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.Closer;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.feedsim.FeedSimApplication;
import io.jtick.hdb.HdbApplication;
import io.jtick.rdb.RdbApplication;
import tools.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A past day pushed through a tickerplant as if live: the hdb-service app holds a day, the feed-sim
 * app's {@code POST /api/feed/start} with source {@code hdb} replays it from the HDB's replay port
 * into the tickerplant, the rdb-service app receives it, and the RDB then holds exactly the HDB's
 * day: every row, value for value (compared as sorted CSV lines of both query answers).
 */
class ReplayThroughTickerplantIT {
    private static final LocalDate DAY = LocalDate.of(2025, 3, 14);
    private static final int ROWS = 20_000;

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldReplayAnHdbDayThroughTheTickerplantIntoTheRdb() throws Exception {
        final TickStack stack = TickStack.start(dir, closer);
        new PartitionWriter(stack.hdbRoot(), EncodingPolicy.PLAIN).write(DAY, List.of(TableLoader.syntheticDay("trade", DAY, ROWS, 40, 5,
            new SymbolCatalog()).segment((int) DAY.toEpochDay())));
        ok(stack.hdbPort(), "POST", "/api/reload", null);
        final int replayPort = get(stack.hdbPort(), "/api/status").get("replayPort").asInt();
        final ConfigurableApplicationContext feedSim = closer.track(TickStack.app(FeedSimApplication.class, "feed-sim",
            "--tick.feed.tp-port=" + stack.tp().port(), "--tick.feed.hdb-replay-port=" + replayPort,
            "--tick.feed.runs-dir=" + dir.resolve("runs")));
        final int feedPort = TickStack.port(feedSim);
        ok(feedPort, "POST", "/api/feed/start", "{\"source\":\"hdb\",\"from\":\"" + DAY + "\",\"tables\":[\"trade\"],\"pace\":\"max\","
            + "\"r\":500}");
        await("the RDB holds the replayed day", WAIT, () -> stack.rdbTradeRows() == ROWS);
        await("the feed ended", WAIT, () -> "finished".equals(get(feedPort, "/api/feed").get("state").asString()));
        assertThat(get(feedPort, "/api/feed").get("rowsSent").asLong()).isEqualTo(ROWS);
        assertThat(get(feedPort, "/api/feed").get("parameters").get("source").asString()).isEqualTo("hdb");

        final String query = "{\"table\":\"trade\",\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"],\"limit\":1000000}";
        final List<String> rdb = csv(call(stack.rdbPort(), "POST", "/api/query", query, "text/csv"));
        final List<String> hdb = csv(call(stack.hdbPort(), "POST", "/api/query", query, "text/csv"));
        assertThat(rdb).hasSize(ROWS).isEqualTo(hdb);
        final List<String> timeOrder = call(stack.rdbPort(), "POST", "/api/query", query, "text/csv").body().lines().skip(1).toList();
        assertThat(timeOrder).as("the RDB received the day in time order").isSortedAccordingTo(
            (a, b) -> Instant.parse(a.substring(0, a.indexOf(','))).compareTo(Instant.parse(b.substring(0, b.indexOf(',')))));
        assertThat(ok(stack.hdbPort(), "GET", "/api/replays", null).get("replays").get(0).get("rowsSent").asLong()).isEqualTo(ROWS);
    }

    /**
     * The same day through ports that ask for the API token (as bound off loopback, with reads
     * protected): the tickerplant's feed/subscriber port, the HDB's replay port and every REST API.
     * The feed-sim and rdb-service apps present the token of their {@code tick.api.token} in HELLO
     * (to the HDB's replay port and to the TP), so the day arrives; an RDB without the token is refused
     * by the TP with {@code access-denied} and holds nothing.
     */
    @Test
    void shouldReplayThroughPortsThatAskForTheTokenWhenEveryServiceHasIt() throws Exception {
        final String token = "replay-t0ken-0123456789";
        final AccessSettings access = new AccessSettings(token, AccessSettings.Guard.ALWAYS, true);
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0),
            SchemaRegistry.builtIn(0), NanoClock.SYSTEM, new TickMetrics()).access(access).start());
        final Path hdbRoot = dir.resolve("hdb");
        new PartitionWriter(hdbRoot, EncodingPolicy.PLAIN).write(DAY, List.of(TableLoader.syntheticDay("trade", DAY, ROWS, 40, 5,
            new SymbolCatalog()).segment((int) DAY.toEpochDay())));
        final String[] guard = {"--tick.api.guard=always", "--tick.api.protect-reads=true", "--tick.api.token=" + token};
        final int hdbPort = TickStack.port(closer.track(TickStack.app(HdbApplication.class, "hdb-service", with(guard,
            "--tick.hdb.root=" + hdbRoot, "--tick.hdb.tiering.enabled=false"))));
        final int replayPort = ok(hdbPort, "GET", "/api/status", null, token).get("replayPort").asInt();
        final int rdbPort = TickStack.port(closer.track(TickStack.app(RdbApplication.class, "rdb-service", with(guard,
            "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms"))));
        final int strangerPort = TickStack.port(closer.track(TickStack.app(RdbApplication.class, "rdb-stranger",
            "--tick.rdb.name=rdb-stranger", "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms")));
        await("the RDB with the token subscribed", WAIT,
            () -> ok(rdbPort, "GET", "/api/status", null, token).get("subscribed").asBoolean());
        final int feedPort = TickStack.port(closer.track(TickStack.app(FeedSimApplication.class, "feed-sim", with(guard,
            "--tick.feed.tp-port=" + tp.port(), "--tick.feed.hdb-replay-port=" + replayPort,
            "--tick.feed.runs-dir=" + dir.resolve("runs")))));
        ok(feedPort, "POST", "/api/feed/start", "{\"source\":\"hdb\",\"from\":\"" + DAY + "\",\"tables\":[\"trade\"],"
            + "\"pace\":\"max\",\"r\":500}", token);
        await("the RDB holds the replayed day", WAIT,
            () -> ok(rdbPort, "GET", "/api/status", null, token).path("tables").path("trade").asLong(0) == ROWS);
        assertThat(ok(feedPort, "GET", "/api/feed", null, token).get("rowsSent").asLong()).isEqualTo(ROWS);

        await("the RDB without the token told why", WAIT, () -> get(strangerPort, "/api/status").get("lastError").isString());
        final JsonNode stranger = get(strangerPort, "/api/status");
        assertThat(stranger.get("subscribed").asBoolean()).isFalse();
        assertThat(stranger.get("rows").asLong()).isZero();
        assertThat(stranger.get("lastError").asString()).startsWith("access-denied: the API token is required").contains("access=read");
        assertThat(call(rdbPort, "GET", "/api/status", null, "application/json").statusCode()).as("reads protected on REST too")
            .isEqualTo(401);
    }

    private static String[] with(final String[] common, final String... more) {
        final List<String> all = new java.util.ArrayList<>(List.of(common));
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    /** The body's data lines, sorted (the RDB answers in arrival order, the HDB by sym then time). */
    private static List<String> csv(final HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body().lines().skip(1).sorted().toList();
    }
}
