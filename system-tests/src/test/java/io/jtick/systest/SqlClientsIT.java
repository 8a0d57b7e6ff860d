package io.jtick.systest;

import io.jtick.boot.PgPort;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.SCHEMAS;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Python PostgreSQL clients against rdb-service's PostgreSQL port (docs/query.md "SQL"):
 * psycopg 3.3.9 (binary and text results, server-side prepared statements with parameters) and
 * pandas {@code read_sql} over it, from the test virtualenv ({@link KdbClientsVenv}; skipped, saying
 * why, when it cannot be made). The six benchmark questions, a parameterised last trade and a
 * Grafana time-series panel's statement answer value for value as the RDB's {@code POST /api/query}
 * answers their documents (times in PostgreSQL's microseconds: the rows here are on whole
 * microseconds); an unknown table answers its SQLSTATE to each client. Tagged slow, as
 * {@link KdbClientsIT}: the first run installs the clients from PyPI.
 */
@Tag("slow")
class SqlClientsIT {
    /** 2026-11-21T09:30:00Z. */
    private static final long T0 = 1_795_253_400_000_000_000L;
    private static final String[] SYMS = {"AAPL", "IBM", "MSFT", "GOOG", "AMZN"};
    private static final int UPDATES = 400;

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldAnswerPsycopgAndPandasAsTheQueryApiDoes() throws Exception {
        final Path python = KdbClientsVenv.python();
        final TickStack stack = TickStack.start(dir, closer);
        publish(stack.feed());
        await("RDB has the rows", WAIT, () -> stack.rdbTradeRows() == UPDATES * 3L
            && get(stack.rdbPort(), "/api/status").path("tables").path("quote").asLong(0) == UPDATES * 2L);
        final int pgPort = stack.rdb().getBean(PgPort.class).port();

        // name -> SQL, parameters (or null) and the document /api/query answers the same with
        final Map<String, Object[]> questions = new LinkedHashMap<>();
        questions.put("count by sym", new Object[] {"SELECT sym, count(*) AS n FROM trade GROUP BY sym ORDER BY sym", null,
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\",\"orderBy\":\"sym\"}"});
        questions.put("vwap by sym", new Object[] {"SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade "
            + "GROUP BY sym ORDER BY sym", null, "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},"
            + "\"n\":{\"count\":\"*\"}},\"by\":\"sym\",\"orderBy\":\"sym\"}"});
        questions.put("one sym", new Object[] {"SELECT time, sym, price, size, cond FROM trade WHERE sym = 'IBM'", null,
            "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}"});
        questions.put("bars 1m", new Object[] {"SELECT time AS minute, first(price) AS open, max(price) AS high, min(price) AS low, "
            + "last(price) AS close, sum(size) AS volume FROM trade WHERE sym = 'IBM' SAMPLE BY 1m", null,
            "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
                + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}"});
        questions.put("asof", new Object[] {"SELECT t.time, t.price, t.size, q.bid, q.ask FROM trade t ASOF JOIN quote q ON (sym) "
            + "WHERE t.sym = 'IBM'", null, "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"price\",\"size\","
            + "\"bid\",\"ask\"],\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}"});
        questions.put("spread by sym", new Object[] {"SELECT sym, avg(ask - bid) AS spread FROM quote WHERE time BETWEEN "
            + "'2026-11-21T09:31:00Z' AND '2026-11-21T09:33:00Z' GROUP BY sym ORDER BY sym", null,
            "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"2026-11-21T09:31:00Z\",\"2026-11-21T09:33:00Z\"]}},"
                + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\",\"orderBy\":\"sym\"}"});
        questions.put("last trade, a parameter", new Object[] {"SELECT time, price, size FROM trade WHERE sym = %s "
            + "ORDER BY time DESC LIMIT 1", List.of("MSFT"), "{\"table\":\"trade\",\"where\":{\"sym\":\"MSFT\"},"
            + "\"select\":[\"time\",\"price\",\"size\"],\"orderBy\":\"-time\",\"limit\":1}"});
        questions.put("grafana panel", new Object[] {"SELECT floor(extract(epoch from time)/60)*60 AS \"time\", "
            + "sum(price * size) / sum(size) AS vwap FROM trade WHERE time BETWEEN '2026-11-21T09:30:00Z' AND "
            + "'2026-11-21T09:35:00Z' AND sym = 'IBM' GROUP BY 1 ORDER BY 1", null, "{\"table\":\"trade\",\"where\":{\"time\":"
            + "{\"within\":[\"2026-11-21T09:30:00Z\",\"2026-11-21T09:35:00Z\"]},\"sym\":\"IBM\"},\"select\":{\"vwap\":{\"wavg\":"
            + "[\"size\",\"price\"]}},\"by\":{\"time\":{\"xbar\":[\"1m\",\"time\"]}},\"orderBy\":\"time\"}"});
        final List<Map<String, Object>> statements = new ArrayList<>();
        questions.forEach((name, q) -> {
            final Map<String, Object> st = new LinkedHashMap<>();
            st.put("name", name);
            st.put("sql", q[0]);
            st.put("params", q[1]);
            statements.add(st);
        });
        statements.add(Map.of("name", "unknown table", "sql", "SELECT * FROM trades"));

        final List<String> out = KdbClientsVenv.runScript(python, 180, "sql_clients.py", Integer.toString(pgPort),
            JSON.writeValueAsString(statements));
        final Map<String, List<JsonNode>> byName = new LinkedHashMap<>();
        for (final String line : out) {
            if (line.startsWith("{")) {
                final JsonNode n = JSON.readTree(line);
                byName.computeIfAbsent(n.get("name").asString(), k -> new ArrayList<>()).add(n);
            }
        }
        for (final Map.Entry<String, Object[]> q : questions.entrySet()) {
            final JsonNode expected = ok(stack.rdbPort(), "POST", "/api/query", (String) q.getValue()[2]);
            final List<List<Object>> rows = rows(expected);
            assertThat(rows).as(q.getKey() + " has rows").isNotEmpty();
            assertThat(byName.get(q.getKey())).as(q.getKey() + ": " + out).hasSize(3);
            for (final JsonNode answer : byName.get(q.getKey())) {
                final String what = q.getKey() + " via " + answer.get("client").asString();
                assertThat(answer.has("rows")).as(what + ": " + answer).isTrue();
                assertThat(values(answer.get("rows"))).as(what).isEqualTo(rows);
            }
        }
        assertThat(byName.get("unknown table")).hasSize(3).allSatisfy(e -> {
            assertThat(e.get("sqlstate").asString()).as(e.toString()).isEqualTo("42P01");
            assertThat(e.get("message").asString()).contains("trades");
        });
    }

    /** The rows of a /api/query answer as plain values: timestamps as epoch microseconds. */
    private static List<List<Object>> rows(final JsonNode answer) {
        final JsonNode types = answer.get("types");
        final List<List<Object>> rows = new ArrayList<>();
        for (final JsonNode r : answer.get("rows")) {
            final List<Object> row = new ArrayList<>();
            for (int c = 0; c < r.size(); c++) {
                final JsonNode v = r.get(c);
                if (types.get(c).asString().equals("timestamp")) {
                    final Instant t = Instant.parse(v.asString());
                    row.add(t.getEpochSecond() * 1_000_000L + t.getNano() / 1000);
                } else {
                    row.add(plain(v));
                }
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<List<Object>> values(final JsonNode rows) {
        final List<List<Object>> out = new ArrayList<>();
        for (final JsonNode r : rows) {
            final List<Object> row = new ArrayList<>();
            r.forEach(v -> row.add(plain(v)));
            out.add(row);
        }
        return out;
    }

    private static Object plain(final JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber()) {
            return v.asLong();
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        return v.asString();
    }

    /** {@code UPDATES} trade updates of three rows and quote updates of two, a second apart, on whole microseconds. */
    private static void publish(final FeedPublisher feed) {
        final TableSchema trade = SCHEMAS.get("trade");
        final TableSchema quote = SCHEMAS.get("quote");
        for (int id = 0; id < UPDATES; id++) {
            final long t = T0 + id * 1_000_000_000L;
            final ByteBuf b = feed.alloc().directBuffer(512);
            final UpdateEncoder enc = encoder(b, trade, 3, id);
            for (int r = 0; r < 3; r++) {
                enc.timestamp(0, r, t + r * 1000L).sym(r, (id + r) % SYMS.length).float64(2, r, 100.0 + id % 37 + r / 8.0)
                    .int64(3, r, 100L * (1 + (id + r) % 9)).int8(4, r, 'A' + r);
            }
            send(feed, enc, b, t);
            final ByteBuf q = feed.alloc().directBuffer(512);
            final UpdateEncoder qe = encoder(q, quote, 2, id);
            for (int r = 0; r < 2; r++) {
                final double bid = 99.5 + id % 37 + r / 4.0;
                qe.timestamp(0, r, t - 500_000L + r * 1000L).sym(r, (id + 2 * r) % SYMS.length).float64(2, r, bid)
                    .float64(3, r, bid + 0.25 * (1 + id % 3)).int64(4, r, 10L * (1 + id % 5)).int64(5, r, 10L * (1 + r));
            }
            send(feed, qe, q, t);
        }
    }

    private static UpdateEncoder encoder(final ByteBuf b, final TableSchema schema, final int rows, final int id) {
        int dict = 0;
        for (final String s : SYMS) {
            dict += 1 + s.length();
        }
        final UpdateEncoder enc = new UpdateEncoder().wrap(b, schema, rows, dict);
        for (final String s : SYMS) {
            enc.addSym(s.getBytes(StandardCharsets.US_ASCII));
        }
        return enc;
    }

    private static void send(final FeedPublisher feed, final UpdateEncoder enc, final ByteBuf b, final long time) {
        enc.feedTime(time);
        enc.finish();
        assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
        assertThat(feed.send(b)).isTrue();
    }
}
