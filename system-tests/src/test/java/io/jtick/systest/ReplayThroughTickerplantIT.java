package io.jtick.systest;

import io.jtick.core.hdb.EncodingPolicy;
import io.jtick.core.hdb.PartitionWriter;
import io.jtick.core.lab.TableLoader;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.testing.Closer;
import io.jtick.feedsim.FeedSimApplication;
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

    /** The body's data lines, sorted (the RDB answers in arrival order, the HDB by sym then time). */
    private static List<String> csv(final HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body().lines().skip(1).sorted().toList();
    }
}
