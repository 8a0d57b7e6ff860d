package io.jtick.systest;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.TRADE;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * End of day through the real services on loopback: a feed sends trades to a tickerplant, the
 * rdb-service app subscribes, the TP ends the day, the RDB writes the partition and tells the
 * hdb-service app (over HTTP) to reload, and the HDB's query returns exactly the rows sent. Then a
 * write that fails leaves the rows in the RDB and shows in its status, {@code POST /api/eod/replay}
 * rebuilds that day from the journal, and an HDB that is down fails the end of day too.
 */
class EndOfDayIT {
    private static final String[] SYMS = {"IBM", "MSFT", "AAPL", "GOOG", "KX"};
    private static final long T0 = 1_795_253_400_000_000_000L;

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    /** Update {@code id}: three rows, each with its own size (id * 1000 + row) and time. */
    static void send(final FeedPublisher feed, final int from, final int to) {
        for (int id = from; id <= to; id++) {
            final ByteBuf b = feed.alloc().directBuffer(256);
            TestSupport.trade(b, TRADE, id, T0 + id * 1000L, SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]);
            assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
            assertThat(feed.send(b)).isTrue();
        }
    }

    /** The rows updates {@code from..to} carry, as the HDB returns them: sym order, then time. */
    static JsonNode expected(final int from, final int to) {
        final List<List<Object>> rows = new ArrayList<>();
        for (int id = from; id <= to; id++) {
            final String[] syms = {SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]};
            for (int r = 0; r < 3; r++) {
                final long t = T0 + id * 1000L + r;
                rows.add(List.of(Instant.ofEpochSecond(0, t).toString(), syms[r], 100.0 + id + r / 100.0, id * 1000L + r,
                    String.valueOf((char) ('A' + r % 26))));
            }
        }
        rows.sort(Comparator.comparing((List<Object> row) -> (String) row.get(1)).thenComparing(row -> (String) row.get(0)));
        return JSON.readTree(JSON.writeValueAsString(rows));
    }

    static JsonNode hdbRows(final int hdbPort, final LocalDate date) throws Exception {
        final HttpResponse<String> r = call(hdbPort, "POST", "/api/query", "{\"table\":\"trade\",\"date\":\"" + date
            + "\",\"columns\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"],\"limit\":100000}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).get("rows");
    }

    @Test
    void shouldWriteDayToHdbClearRdbAndRecoverFailedDayFromJournal() throws Exception {
        final TickStack stack = TickStack.start(dir, closer);
        final Path hdbRoot = stack.hdbRoot();
        final TickerplantServer tp = stack.tp();
        final ConfigurableApplicationContext hdb = stack.hdb();
        final int hdbPort = stack.hdbPort();
        final int rdbPort = stack.rdbPort();
        final FeedPublisher feed = stack.feed();

        // day 1: every row sent is in the HDB after end of day, and the RDB is empty
        final LocalDate day1 = tp.call(t -> t.date());
        send(feed, 1, 200);
        await("RDB has day 1", WAIT, () -> stack.rdbTradeRows() == 600);
        tp.endOfDay();
        await("RDB end of day 1", WAIT, () -> get(rdbPort, "/api/status").get("endOfDays").asInt() == 1);
        assertThat(hdbRows(hdbPort, day1)).isEqualTo(expected(1, 200));
        get(rdbPort, "/api/tables").forEach(t -> assertThat(t.get("rows").asLong()).as(t.toString()).isZero());
        final JsonNode written = get(rdbPort, "/api/status").get("writeDown");
        assertThat(written.get("enabled").asBoolean()).isTrue();
        assertThat(written.get("lastWrite").get("date").asString()).isEqualTo(day1.toString());
        assertThat(written.get("lastWrite").get("rows").asLong()).isEqualTo(600);
        assertThat(get(hdbPort, "/api/partitions").toString()).contains("\"date\":\"" + day1 + "\"", "\"rows\":600");

        // day 2: the partition cannot be created (a file holds its name): the RDB keeps the rows and says why
        final LocalDate day2 = tp.call(t -> t.date());
        assertThat(day2).isAfter(day1);
        send(feed, 201, 300);
        await("RDB has day 2", WAIT, () -> stack.rdbTradeRows() == 300);
        final Path blocker = Files.writeString(hdbRoot.resolve(day2.toString()), "not a directory");
        tp.endOfDay();
        await("RDB end of day 2 failed", WAIT, () -> get(rdbPort, "/api/status").get("endOfDayFailures").asInt() == 1);
        JsonNode status = get(rdbPort, "/api/status");
        assertThat(status.get("tables").get("trade").asLong()).isEqualTo(300);
        assertThat(status.get("lastEodError").asString()).contains("end of day failed, data kept", hdbRoot.resolve(day2.toString())
            .toString());
        assertThat(status.get("writeDown").get("lastWrite").get("date").asString()).isEqualTo(day1.toString());
        assertThat(call(hdbPort, "POST", "/api/query", "{\"table\":\"trade\",\"date\":\"" + day2 + "\"}").body()).contains("\"rows\":[]");

        // replay day 2 from the TP's journal once the obstacle is gone: the HDB gets exactly day 2's rows
        Files.delete(blocker);
        assertThat(call(rdbPort, "POST", "/api/eod/replay?date=2001-01-01", null).body()).contains("no journal for that day");
        assertThat(call(rdbPort, "POST", "/api/eod/replay?date=2001-01-01", null).statusCode()).isEqualTo(400);
        assertThat(call(rdbPort, "POST", "/api/eod/replay?date=tuesday", null).statusCode()).isEqualTo(400);
        assertThat(call(rdbPort, "POST", "/api/eod/replay", null).statusCode()).isEqualTo(400);
        final HttpResponse<String> replay = call(rdbPort, "POST", "/api/eod/replay?date=" + day2, null);
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(200);
        assertThat(JSON.readTree(replay.body()).get("rows").asLong()).isEqualTo(300);
        assertThat(hdbRows(hdbPort, day2)).isEqualTo(expected(201, 300));
        assertThat(hdbRows(hdbPort, day1)).isEqualTo(expected(1, 200));

        // day 3 with the HDB down: the partition is written, so the day is saved and the RDB clears its memory (no row may
        // be both in the RDB and in the HDB); the HDB is told once it is back, and it loads the day at its start anyway
        final LocalDate day3 = tp.call(t -> t.date());
        send(feed, 301, 350);
        await("RDB has day 3", WAIT, () -> stack.rdbTradeRows() == 450);
        closer.forget(hdb);
        hdb.close();
        tp.endOfDay();
        await("RDB end of day 3", WAIT, () -> get(rdbPort, "/api/status").get("endOfDays").asInt() == 2);
        status = get(rdbPort, "/api/status");
        assertThat(status.get("endOfDayFailures").asInt()).isEqualTo(1);
        assertThat(status.get("tables").get("trade").asLong()).isZero();
        assertThat(status.get("writeDown").get("undelivered").toString()).isEqualTo("[\"" + day3 + "\"]");
        assertThat(status.get("writeDown").get("lastError").asString()).contains("HDB reload failed [url=http://127.0.0.1:" + hdbPort
            + "/api/reload, date=" + day3 + "]");
        final ConfigurableApplicationContext hdbAgain = closer.track(TickStack.app(io.jtick.hdb.HdbApplication.class, "hdb-again",
            "--server.port=" + hdbPort, "--tick.hdb.root=" + hdbRoot, "--tick.hdb.tiering.enabled=false"));
        assertThat(TickStack.port(hdbAgain)).isEqualTo(hdbPort);
        // day 3's partition also holds the rows the RDB kept after day 2's failed write (docs/operations.md: a known limitation;
        // the replay above wrote day 2 too, so those are in the HDB twice)
        assertThat(hdbRows(hdbPort, day3)).as("day 3 and what the RDB kept").isEqualTo(expected(201, 350));
        assertThat(hdbRows(hdbPort, day2)).isEqualTo(expected(201, 300));
        await("the retry delivered day 3", WAIT, () -> get(rdbPort, "/api/status").get("writeDown").get("undelivered").isEmpty());
        assertThat(get(rdbPort, "/api/status").get("writeDown").get("lastError").isNull()).isTrue();
    }
}
