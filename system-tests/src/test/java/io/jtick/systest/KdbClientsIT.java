package io.jtick.systest;

import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.Closer;
import io.jtick.core.tp.TickerplantServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real third-party kdb+ clients against the tickerplant's kdb+ port, with the rdb-service app
 * subscribed natively: PyKX 4.2.0 (unlicensed, {@code no_ctx=True}) and kola 2.6.1 from a virtualenv
 * the test creates ({@link KdbClientsVenv}; skipped, saying why, when it cannot). The TP's tables are
 * kdb-tick's sym.q (docs/examples/kdb-tick-sym.yml). A pandas table, lists of columns and Polars tables
 * are published with {@code .u.upd}, and so are kdb-tick feed.q's string form ({@code "(.u.upd[`trade;(...)])"},
 * sync and async), all read back exactly from the RDB's {@code POST /api/query}; a
 * PyKX subscriber with a sym filter receives {@code upd} with exact values, then {@code .u.end}; a bad
 * update gets its error. Tagged slow: the first run installs the clients (~600 MB) from PyPI, and each
 * Python client takes seconds to start.
 */
@Tag("slow")
class KdbClientsIT {
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldPublishAndSubscribeWithPyKXAndKola() throws Exception {
        final Path python = KdbClientsVenv.python();
        final SchemaRegistry symQ = SchemaRegistry.load(KdbClientsVenv.ROOT.resolve("docs/examples/kdb-tick-sym.yml"), 0);
        final TickStack stack = TickStack.start(dir, closer, Map.of(), Map.of(), symQ, KdbSettings.onPort(0));
        final TickerplantServer tp = stack.tp();
        final String port = Integer.toString(tp.kdbPort());
        final LocalDate day = tp.call(t -> t.date());
        final long midnight = day.atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000_000L;

        // a PyKX subscriber to IBM only, started first
        final Process sub = KdbClientsVenv.start(python, "subscribe", port, "IBM", "6");
        final List<String> subOut = new ArrayList<>();
        KdbClientsVenv.drain(sub, subOut);
        closer.track((AutoCloseable) sub::destroyForcibly);
        await("PyKX subscribed", Duration.ofSeconds(90), () -> lines(subOut).stream().anyMatch(l -> l.contains("\"subscribed\"")));
        assertThat(JSON.readTree(lines(subOut).stream().filter(l -> l.contains("\"subscribed\"")).findFirst().orElseThrow()).toString())
            .as(".u.sub answers sym.q's empty trade table: time is a timespan")
            .isEqualTo("{\"event\":\"subscribed\",\"table\":\"trade\",\"columns\":[\"time\",\"sym\",\"price\",\"size\"],"
                + "\"dtypes\":[\"timedelta64[ns]\",\"str\",\"float64\",\"int32\"]}");

        final long before = System.currentTimeMillis() * 1_000_000L;
        assertThat(KdbClientsVenv.run(python, 120, "publish-pandas", port)).containsExactly(
            "{\"step\": \"pandas\", \"answer\": \"::\"}", "{\"step\": \"columns-sync\", \"answer\": \"::\"}");
        assertThat(KdbClientsVenv.run(python, 120, "publish-text", port)).containsExactly(
            "{\"step\": \"text-sync\", \"answer\": \"::\"}",
            "{\"step\": \"text-error\", \"error\": \"nyi [argument price (only literals: the tickerplant evaluates no q)]\"}");
        assertThat(KdbClientsVenv.run(python, 120, "publish-polars", port)).hasSize(2).allMatch(l -> l.contains("\"answer\""));
        final long after = System.currentTimeMillis() * 1_000_000L;

        // every row, exactly, from the RDB (native subscriber) in arrival order; stamped times lie between before and after
        await("RDB has the 13 rows", WAIT, () -> get(stack.rdbPort(), "/api/status").path("tables").path("trade").asLong(0) == 13);
        final JsonNode rows = ok(stack.rdbPort(), "POST", "/api/query",
            "{\"table\":\"trade\",\"columns\":[\"time\",\"sym\",\"price\",\"size\"],\"limit\":100}").get("rows");
        final List<String> got = new ArrayList<>();
        for (final JsonNode r : rows) {
            final Instant t = Instant.parse(r.get(0).asString());
            final long nanos = t.getEpochSecond() * 1_000_000_000L + t.getNano();
            final String time = nanos >= before && nanos <= after ? "stamped" : Long.toString(nanos - midnight);
            got.add(time + " " + r.get(1).asString() + " " + r.get(2).asDouble() + " " + r.get(3).asLong());
        }
        assertThat(got).containsExactly(
            "34200000000001 IBM 187.25 100",        // pandas, PyKX: 09:30:00.000000001
            "34201500000000 MSFT 402.5 200",         // 09:30:01.5
            "57599999999999 IBM 188.125 300",        // 15:59:59.999999999
            "stamped KX 1.5 7",                      // a list of columns without time, async
            "stamped IBM 2.75 8",
            "stamped AAPL 3.25 9",                   // the same, sync
            "34260000000000 IBM 190.5 10",           // feed.q's string form, sync: 09:31
            "34261250000000 KX 2.5 20",              // 09:31:01.25
            "stamped IBM 191.0 30",                  // one row as a string, async
            "36000000000000 GOOG 10.5 5",            // Polars, kola: 10:00
            "39600000005000 IBM 11.25 6",            // 11:00:00.000005
            "stamped ORCL 99.0 1",                   // Polars with the sym as strings, async
            "stamped SAP 99.0 1");                   // and sync

        // a bad update gets its error; the connection goes on
        assertThat(KdbClientsVenv.run(python, 120, "bad-update", port)).containsExactly(
            "{\"client\": \"pykx\", \"error\": \"type [table=trade column=price expected=float got=long]\"}",
            "{\"client\": \"pykx\", \"after\": \"::\"}",
            "{\"client\": \"kola\", \"error\": \"Internal Server Error - \\\"unknown table [table=nope]\\\"\"}");
        assertThat(tp.status().errors()).containsEntry("wrong-type", 1L).containsEntry("unknown-table", 1L)
            .containsEntry("unexpected-message", 1L);

        // end of day reaches the subscriber as .u.end after its four upd messages
        tp.endOfDay();
        assertThat(sub.waitFor(90, java.util.concurrent.TimeUnit.SECONDS)).as("subscriber done: " + lines(subOut)).isTrue();
        final List<String> events = lines(subOut).stream().filter(l -> l.startsWith("{")).toList();
        final String ts = "\"dtypes\": [\"timedelta64[ns]\", \"str\", \"float64\", \"int32\"]";
        assertThat(events.subList(1, events.size())).as(String.join("\n", lines(subOut))).hasSize(7);
        assertThat(events.get(1)).isEqualTo("{\"event\": \"upd\", \"table\": \"trade\", " + ts
            + ", \"rows\": [[34200000000001, \"IBM\", 187.25, 100], [57599999999999, \"IBM\", 188.125, 300]]}");
        final JsonNode stamped = JSON.readTree(events.get(2)).get("rows").get(0);
        assertThat(stamped.toString()).endsWith(",\"IBM\",2.75,8]");
        assertThat(stamped.get(0).asLong() + midnight).as("a stamped time, as a timespan since the date's midnight")
            .isBetween(before, after);
        assertThat(events.get(3)).as("the string form, filtered as any update").isEqualTo("{\"event\": \"upd\", \"table\": \"trade\", "
            + ts + ", \"rows\": [[34260000000000, \"IBM\", 190.5, 10]]}");
        assertThat(events.get(4)).endsWith(", \"IBM\", 191.0, 30]]}");
        assertThat(events.get(5)).isEqualTo("{\"event\": \"upd\", \"table\": \"trade\", " + ts
            + ", \"rows\": [[39600000005000, \"IBM\", 11.25, 6]]}");
        assertThat(events.get(6)).as("bad-update's good update after the error").endsWith(", \"IBM\", 1.0, 1]]}");
        assertThat(events.get(7)).isEqualTo("{\"event\": \"end\", \"date\": \"" + day + "\"}");
        assertThat(sub.exitValue()).isZero();
        assertThat(midnight % NANOS_PER_DAY).isZero();
    }

    private static List<String> lines(final List<String> out) {
        synchronized (out) {
            return List.copyOf(out);
        }
    }
}
