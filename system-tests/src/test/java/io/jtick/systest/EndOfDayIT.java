package io.jtick.systest;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.util.NanoClock;
import io.jtick.hdb.HdbApplication;
import io.jtick.rdb.RdbApplication;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * End of day through the real services on loopback: a feed sends trades to a tickerplant, the
 * rdb-service app subscribes, the TP ends the day, the RDB writes the partition and tells the
 * hdb-service app (over HTTP) to reload, and the HDB's query returns exactly the rows sent. Then a
 * write that fails leaves the rows in the RDB and shows in its status, {@code POST /api/eod/replay}
 * rebuilds that day from the journal, and an HDB that is down fails the end of day too.
 */
class EndOfDayIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final String[] SYMS = {"IBM", "MSFT", "AAPL", "GOOG", "KX"};
    private static final long T0 = 1_795_253_400_000_000_000L;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    private static ConfigurableApplicationContext app(final Class<?> main, final String name, final String... args) {
        final List<String> all = new ArrayList<>(List.of("--spring.config.name=jtick-system-test", "--server.port=0",
            "--server.address=127.0.0.1", "--spring.application.name=" + name,
            "--management.endpoints.web.exposure.include=health,prometheus"));
        all.addAll(List.of(args));
        return new SpringApplicationBuilder(main).run(all.toArray(new String[0]));
    }

    private static int port(final ConfigurableApplicationContext ctx) {
        return Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
    }

    private static HttpResponse<String> call(final int port, final String method, final String path, final String body) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode get(final int port, final String path) {
        try {
            final HttpResponse<String> r = call(port, "GET", path, null);
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Update {@code id}: three rows, each with its own size (id * 1000 + row) and time. */
    private static void send(final FeedPublisher feed, final int from, final int to) {
        for (int id = from; id <= to; id++) {
            final ByteBuf b = feed.alloc().directBuffer(256);
            TestSupport.trade(b, TRADE, id, T0 + id * 1000L, SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]);
            assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
            assertThat(feed.send(b)).isTrue();
        }
    }

    /** The rows updates {@code from..to} carry, as the HDB returns them: sym order, then time. */
    private static JsonNode expected(final int from, final int to) {
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

    private static JsonNode hdbRows(final int hdbPort, final LocalDate date) throws Exception {
        final HttpResponse<String> r = call(hdbPort, "POST", "/api/query", "{\"table\":\"trade\",\"date\":\"" + date
            + "\",\"columns\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"],\"limit\":100000}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).get("rows");
    }

    private static long rdbTradeRows(final int rdbPort) {
        return get(rdbPort, "/api/status").path("tables").path("trade").asLong(0);
    }

    @Test
    void shouldWriteDayToHdbClearRdbAndRecoverFailedDayFromJournal() throws Exception {
        final Path journal = dir.resolve("journal");
        final Path hdbRoot = Files.createDirectories(dir.resolve("hdb"));
        // end of day only when the test asks (the clock's own is 12 hours away)
        final TickerplantSettings settings = TickerplantSettings.defaults(journal).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC);
        final TickerplantServer tp = closer.track(new TickerplantServer(settings, SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start());
        final ConfigurableApplicationContext hdb = closer.track(app(HdbApplication.class, "hdb-service",
            "--tick.hdb.root=" + hdbRoot, "--tick.hdb.tiering.enabled=false"));
        final int hdbPort = port(hdb);
        final ConfigurableApplicationContext rdb = closer.track(app(RdbApplication.class, "rdb-service",
            "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms", "--tick.rdb.hdb.root=" + hdbRoot,
            "--tick.rdb.hdb.url=http://127.0.0.1:" + hdbPort, "--tick.rdb.journal-root=" + journal));
        final int rdbPort = port(rdb);
        await("RDB subscribed", WAIT, () -> get(rdbPort, "/api/status").get("subscribed").asBoolean());
        final FeedPublisher feed = closer.track(new FeedPublisher("127.0.0.1", tp.port(), "feed", null).connect(5000));

        // day 1: every row sent is in the HDB after end of day, and the RDB is empty
        final LocalDate day1 = tp.call(t -> t.date());
        send(feed, 1, 200);
        await("RDB has day 1", WAIT, () -> rdbTradeRows(rdbPort) == 600);
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
        await("RDB has day 2", WAIT, () -> rdbTradeRows(rdbPort) == 300);
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

        // day 3 with the HDB down: the partition is written but nobody loads it, so the RDB keeps everything it holds
        final LocalDate day3 = tp.call(t -> t.date());
        send(feed, 301, 350);
        await("RDB has day 3", WAIT, () -> rdbTradeRows(rdbPort) == 450);
        closer.forget(hdb);
        hdb.close();
        tp.endOfDay();
        await("RDB end of day 3 failed", WAIT, () -> get(rdbPort, "/api/status").get("endOfDayFailures").asInt() == 2);
        status = get(rdbPort, "/api/status");
        assertThat(status.get("tables").get("trade").asLong()).isEqualTo(450);
        assertThat(status.get("lastEodError").asString()).contains("HDB reload failed [url=http://127.0.0.1:" + hdbPort + "/api/reload, date="
            + day3 + "]");
    }
}
