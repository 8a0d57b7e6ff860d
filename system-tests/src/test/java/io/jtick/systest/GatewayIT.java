package io.jtick.systest;

import io.jtick.boot.OpenApiContract;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.hdb.HdbApplication;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.TRADE;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The gateway across the day boundary through the real services on loopback: a feed sends day 1's
 * trades through a tickerplant to the rdb-service app, end of day writes them to the HDB, the feed
 * sends day 2's trades, and the hdb-service app's {@code POST /api/gateway/query} answers over both
 * days from the partition plus the RDB (over REST). Every answer is checked against values
 * computed here from the rows sent: groups merged across the days, exact medians, row order by date.
 */
class GatewayIT {
    private static final String[] SYMS = {"IBM", "MSFT", "AAPL", "GOOG", "KX"};
    private static final long T0 = 1_795_253_400_000_000_000L;

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    /** One row sent: update {@code id}, row {@code r} (as {@link TestSupport#trade} builds it). */
    private record Row(LocalDate date, long time, String sym, double price, long size) {
    }

    private static void send(final FeedPublisher feed, final LocalDate date, final int from, final int to, final List<Row> sent) {
        for (int id = from; id <= to; id++) {
            final String[] syms = {SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]};
            final ByteBuf b = feed.alloc().directBuffer(256);
            TestSupport.trade(b, TRADE, id, T0 + id * 1000L, syms);
            assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
            assertThat(feed.send(b)).isTrue();
            for (int r = 0; r < 3; r++) {
                sent.add(new Row(date, T0 + id * 1000L + r, syms[r], 100.0 + id + r / 100.0, id * 1000L + r));
            }
        }
    }

    private static double median(final List<Row> rows) {
        final long[] sizes = rows.stream().mapToLong(Row::size).sorted().toArray();
        final int n = sizes.length;
        return n % 2 == 1 ? sizes[n / 2] : (sizes[n / 2 - 1] + sizes[n / 2]) / 2.0;
    }

    @Test
    void shouldAnswerOverHdbPartitionAndRdbAcrossTheDayBoundary() throws Exception {
        final TickStack stack = TickStack.start(dir, closer);
        final TickerplantServer tp = stack.tp();
        final int hdbPort = stack.hdbPort();
        final int rdbPort = stack.rdbPort();
        // the gateway: its own hdb-service process over the same root, with the RDB's URL (TorQ runs its gateway apart too)
        final ConfigurableApplicationContext gw = closer.track(TickStack.app(HdbApplication.class, "gateway",
            "--tick.hdb.root=" + stack.hdbRoot(), "--tick.hdb.tiering.enabled=false",
            "--tick.hdb.gateway.rdb-url=http://127.0.0.1:" + rdbPort));
        final int gwPort = TickStack.port(gw);
        final FeedPublisher feed = stack.feed();

        final List<Row> sent = new ArrayList<>();
        final LocalDate day1 = tp.call(t -> t.date());
        send(feed, day1, 1, 200, sent);
        await("RDB has day 1", WAIT, () -> stack.rdbTradeRows() == 600);
        tp.endOfDay();
        await("RDB end of day 1", WAIT, () -> get(rdbPort, "/api/status").get("endOfDays").asInt() == 1);
        final LocalDate day2 = tp.call(t -> t.date());
        assertThat(day2).isAfter(day1);
        send(feed, day2, 201, 300, sent);
        await("RDB has day 2", WAIT, () -> stack.rdbTradeRows() == 300);
        // the gateway process loaded the root before day 1 was written: the RDB's write-down told only the HDB
        ok(gwPort, "POST", "/api/reload", null);

        final String dates = "\"dates\":{\"from\":\"" + day1 + "\",\"to\":\"" + day2 + "\"}";
        // the contract, merged across the days: VWAP and count by sym, plus an exact median
        final JsonNode bySym = ok(gwPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"," + dates + ",\"select\":{\"vwap\":{\"wavg\":"
            + "[\"size\",\"price\"]},\"n\":{\"count\":\"*\"},\"med\":{\"median\":\"size\"}},\"by\":[\"sym\"]}");
        assertThat(bySym.get("columns").toString()).isEqualTo("[\"sym\",\"vwap\",\"n\",\"med\"]");
        final Map<String, List<Row>> groups = new TreeMap<>();
        sent.forEach(r -> groups.computeIfAbsent(r.sym(), k -> new ArrayList<>()).add(r));
        assertThat(bySym.get("rows")).hasSize(groups.size());
        int i = 0;
        for (final Map.Entry<String, List<Row>> g : groups.entrySet()) {
            final JsonNode row = bySym.get("rows").get(i++);
            final double pv = g.getValue().stream().mapToDouble(r -> r.price() * r.size()).sum();
            final double v = g.getValue().stream().mapToDouble(Row::size).sum();
            assertThat(row.get(0).asString()).isEqualTo(g.getKey());
            assertThat(row.get(1).asDouble()).isCloseTo(pv / v, within(1e-9));
            assertThat(row.get(2).asLong()).isEqualTo(g.getValue().size());
            assertThat(row.get(3).asDouble()).isEqualTo(median(g.getValue()));
        }

        // count by date and sym: the boundary itself (day 1 from the partition, day 2 from the RDB)
        final JsonNode byDate = ok(gwPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"," + dates
            + ",\"select\":{\"n\":{\"count\":\"*\"}},"
            + "\"by\":[\"date\",\"sym\"]}");
        final Map<String, Long> counts = new TreeMap<>();
        sent.forEach(r -> counts.merge(r.date() + "|" + r.sym(), 1L, Long::sum));
        final List<String> got = new ArrayList<>();
        byDate.get("rows").forEach(r -> got.add(r.get(0).asString() + "|" + r.get(1).asString() + "=" + r.get(2).asLong()));
        assertThat(got).containsExactlyElementsOf(counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());

        // one sym's rows: day 1 then day 2, each in time order, every value as sent
        final JsonNode ibm = ok(gwPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"," + dates + ",\"where\":{\"sym\":\"IBM\"},"
            + "\"select\":[\"date\",\"time\",\"price\",\"size\"]}");
        final List<String> expected = sent.stream().filter(r -> r.sym().equals("IBM")).map(r -> Arrays.asList(r.date().toString(),
            Instant.ofEpochSecond(0, r.time()).toString(), r.price(), r.size()).toString()).toList();
        final List<String> rows = new ArrayList<>();
        ibm.get("rows").forEach(r -> rows.add(Arrays.asList(r.get(0).asString(), r.get(1).asString(), r.get(2).asDouble(),
            r.get(3).asLong()).toString()));
        assertThat(rows).containsExactlyElementsOf(expected);

        // the same document on the HDB alone sees day 1 only; CSV streams with the column types in a header
        final JsonNode hdbOnly = ok(hdbPort, "POST", "/api/query", "{\"table\":\"trade\"," + dates
            + ",\"select\":{\"n\":{\"count\":\"*\"}}}");
        assertThat(hdbOnly.get("rows").get(0).get(0).asLong()).isEqualTo(600);
        final HttpResponse<String> csv = call(gwPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"," + dates + ",\"select\":{\"n\":"
            + "{\"count\":\"*\"}},\"by\":\"date\"}", "text/csv");
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("X-Jtick-Types")).contains("date,int64");
        assertThat(csv.body().lines().toList()).containsExactly("date,n", day1 + ",600", day2 + ",300");

        // the gateway's examples in hdb-service's OpenAPI document are answered over HDB and RDB
        assertThat(OpenApiContract.fetch(gwPort).sendExamples("POST /api/gateway/query", Map.of())).hasSize(3)
            .allSatisfy(b -> assertThat(b).contains("\"columns\"", "\"rows\""));

        // bad input names its problem; an HDB without an RDB configured, or an RDB that is down, answers 503
        final HttpResponse<String> bad = call(gwPort, "POST", "/api/gateway/query",
            "{\"table\":\"trade\",\"select\":{\"s\":{\"sum\":\"sym\"}}}",
            "application/json");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("sym");
        final HttpResponse<String> none = call(hdbPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"}", "application/json");
        assertThat(none.statusCode()).isEqualTo(503);
        assertThat(none.body()).contains("tick.hdb.gateway.rdb-url");
        closer.forget(stack.rdb());
        stack.rdb().close();
        final HttpResponse<String> down = call(gwPort, "POST", "/api/gateway/query", "{\"table\":\"trade\"," + dates + "}",
            "application/json");
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(ok(gwPort, "POST", "/api/query", "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}}}").get("rows").get(0).get(0)
            .asLong()).isEqualTo(600);
    }
}
