package io.jtick.systest;

import io.jtick.boot.KdbPort;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.wire.UpdateEncoder;
import io.jtick.hdb.HdbApplication;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.SCHEMAS;
import static io.jtick.systest.TickStack.TRADE;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * q users on the RDB's and HDB's kdb+ ports with real clients: PyKX 4.2.0 (unlicensed,
 * {@code no_ctx=True}) and kola 2.6.1 from the test virtualenv ({@link KdbClientsVenv}). Trades and
 * quotes go through a real tickerplant to the rdb-service app; end of day writes day 1 to the
 * hdb-service app; day 2 stays in the RDB. The six benchmark questions, a date range on the HDB, both
 * days through a gateway's kdb+ port ({@code tick.hdb.kdb-gateway=true}), PyKX's functional selects
 * ({@code qsql.select}/{@code exec}), {@code meta}, {@code tables[]} and errors are asked in q, and every table is equal, value for value
 * and type for type, to {@code POST /api/query}'s answer to the same question's document. Tagged slow:
 * the first run installs the clients from PyPI, and each Python client takes seconds to start.
 */
@Tag("slow")
class KdbQueryIT {
    private static final String[] SYMS = {"IBM", "MSFT", "AAPL", "GOOG", "KX"};
    private static final TableSchema QUOTE = SCHEMAS.get("quote");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    /** A q question and the document docs/query.md writes for it. */
    private record Question(String q, String json) {
    }

    private static void send(final FeedPublisher feed, final long t0, final int from, final int to) {
        for (int id = from; id <= to; id++) {
            final String[] syms = {SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]};
            final ByteBuf q = feed.alloc().directBuffer(512);
            quote(q, id, t0 + id * 1_000_000_000L - 500, syms);
            final ByteBuf t = feed.alloc().directBuffer(256);
            TestSupport.trade(t, TRADE, id, t0 + id * 1_000_000_000L, syms);
            assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
            assertThat(feed.send(q)).isTrue();
            assertThat(feed.send(t)).isTrue();
        }
    }

    /** One quote update of three rows (bid = 100 + id + r/100 - 0.01, ask = bid + 0.02 + r/1000). */
    private static void quote(final ByteBuf buf, final long id, final long time, final String... syms) {
        final UpdateEncoder enc = new UpdateEncoder();
        int dictBytes = 0;
        for (final String s : syms) {
            dictBytes += 1 + s.length();
        }
        enc.wrap(buf, QUOTE, syms.length, dictBytes);
        for (int r = 0; r < syms.length; r++) {
            enc.addSym(syms[r].getBytes(StandardCharsets.US_ASCII));
        }
        for (int r = 0; r < syms.length; r++) {
            final double bid = 100.0 + id + r / 100.0 - 0.01;
            enc.timestamp(0, r, time + r).sym(r, r).float64(2, r, bid).float64(3, r, bid + 0.02 + r / 1000.0).int64(4, r, 100 + r)
                .int64(5, r, 200 + r);
        }
        enc.feedTime(time);
        enc.finish();
    }

    @Test
    void shouldAnswerQFromPyKXAndKolaAsTheQueryApiDoes() throws Exception {
        final Path python = KdbClientsVenv.python();
        final TickStack stack = TickStack.start(dir, closer);
        final TickerplantServer tp = stack.tp();
        final LocalDate day1 = tp.call(t -> t.date());
        final long t0 = day1.toEpochDay() * 86_400_000_000_000L + 36_000_000_000_000L;
        send(stack.feed(), t0, 1, 120);
        await("RDB has day 1", WAIT, () -> stack.rdbTradeRows() == 360);
        tp.endOfDay();
        await("RDB end of day 1", WAIT, () -> get(stack.rdbPort(), "/api/status").get("endOfDays").asInt() == 1);
        final LocalDate day2 = tp.call(t -> t.date());
        send(stack.feed(), day2.toEpochDay() * 86_400_000_000_000L + 36_000_000_000_000L, 121, 200);
        await("RDB has day 2", WAIT, () -> stack.rdbTradeRows() == 240);
        final int rdbKdb = stack.rdb().getBean(KdbPort.class).port();
        final int hdbKdb = stack.hdb().getBean(KdbPort.class).port();
        final String d1 = day1.toString().replace('-', '.');

        final List<Question> rdb = List.of(
            new Question("select count i by sym from trade", "{\"table\":\"trade\",\"select\":{\"x\":{\"count\":\"*\"}},\"by\":\"sym\"}"),
            new Question("select vwap:size wavg price, n:count i by sym from trade",
                "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}"),
            new Question("select time, sym, price, size, cond from trade where sym=`IBM",
                "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}"),
            new Question("select open:first price, high:max price, low:min price, close:last price, volume:sum size "
                + "by minute:1 xbar time.minute from trade where sym=`IBM",
                "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
                    + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                    + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}"),
            new Question("aj[`sym`time; select time, sym, price, size from trade where sym=`IBM; select time, sym, bid, ask from quote]",
                "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"bid\",\"ask\"],"
                    + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}"),
            new Question("select spread:avg ask-bid by sym from quote where time within 10:02 10:03",
                "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"10:02\",\"10:03\"]}},"
                    + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}"),
            new Question("select by sym from trade", "{\"table\":\"trade\",\"by\":\"sym\"}"),
            new Question("3#`time xdesc select time, sym, price from trade where sym=`IBM",
                "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"sym\",\"price\"],\"orderBy\":[\"-time\"],"
                    + "\"limit\":3}"),
            new Question("5#select from trade where size within 130000 160000, cond in \"AC\", sym like \"*M*\"",
                "{\"table\":\"trade\",\"where\":{\"size\":{\"within\":[130000,160000]},\"cond\":{\"in\":[\"A\",\"C\"]},"
                    + "\"sym\":{\"in\":[\"IBM\",\"MSFT\"]}},\"limit\":5}"));
        final List<Question> hdb = List.of(
            new Question("select n:count i, vwap:size wavg price by date, sym from trade where date within " + d1 + " " + d1,
                "{\"table\":\"trade\",\"dates\":{\"from\":\"" + day1 + "\",\"to\":\"" + day1 + "\"},\"select\":{\"n\":{\"count\":\"*\"},"
                    + "\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":[\"date\",\"sym\"]}"),
            new Question("select from trade where date=" + d1 + ", sym=`KX",
                "{\"table\":\"trade\",\"dates\":\"" + day1 + "\",\"where\":{\"sym\":\"KX\"},"
                    + "\"select\":[\"date\",\"time\",\"sym\",\"price\",\"size\",\"cond\"]}"));
        for (final String client : List.of("pykx", "kola")) {
            check(python, client, rdbKdb, stack.rdbPort(), rdb);
            check(python, client, hdbKdb, stack.hdbPort(), hdb);
        }

        // the gateway's view (tick.hdb.kdb-gateway=true): an hdb-service over the same root with the RDB's URL answers across both days
        final ConfigurableApplicationContext gw = closer.track(TickStack.app(HdbApplication.class, "gateway",
            "--tick.hdb.root=" + stack.hdbRoot(), "--tick.hdb.tiering.enabled=false", "--tick.hdb.kdb-gateway=true",
            "--tick.hdb.gateway.rdb-url=http://127.0.0.1:" + stack.rdbPort()));
        final String d2 = day2.toString().replace('-', '.');
        final List<JsonNode> across = ask(python, "pykx", gw.getBean(KdbPort.class).port(), List.of(
            "select n:count i, vwap:size wavg price by date from trade where date within " + d1 + " " + d2));
        final JsonNode merged = ok(TickStack.port(gw), "POST", "/api/gateway/query", "{\"table\":\"trade\",\"dates\":{\"from\":\""
            + day1 + "\",\"to\":\"" + day2 + "\"},\"select\":{\"n\":{\"count\":\"*\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},"
            + "\"by\":\"date\"}");
        assertThat(across.get(0).get("rows").toString()).isEqualTo(rows(merged).toString());
        assertThat(across.get(0).get("rows")).hasSize(2);

        // functional selects, as PyKX's qsql.select/exec send them: the same plan, the same answer
        final List<JsonNode> qsql = ask(python, "qsql", rdbKdb, List.of(
            "{\"fn\":\"select\",\"table\":\"trade\",\"columns\":{\"n\":\"count i\",\"vwap\":\"size wavg price\"},"
                + "\"by\":{\"sym\":\"sym\"},\"where\":[\"sym in `IBM`KX\",\"size>150000\"]}",
            "{\"fn\":\"select\",\"table\":\"trade\",\"where\":\"sym=`MSFT\"}",
            "{\"fn\":\"exec\",\"table\":\"trade\",\"columns\":{\"s\":\"sum size\"}}"));
        final JsonNode vwap = ok(stack.rdbPort(), "POST", "/api/query", "{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"IBM\",\"KX\"]},"
            + "\"size\":{\">\":150000}},\"select\":{\"n\":{\"count\":\"*\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}");
        assertThat(qsql.get(0).get("keys").asInt()).isEqualTo(1);
        assertThat(qsql.get(0).get("rows").toString()).isEqualTo(rows(vwap).toString());
        assertThat(qsql.get(1).get("rows").toString()).isEqualTo(rows(ok(stack.rdbPort(), "POST", "/api/query",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"MSFT\"}}")).toString());
        assertThat(qsql.get(2).get("atom").asLong()).isEqualTo(ok(stack.rdbPort(), "POST", "/api/query",
            "{\"table\":\"trade\",\"select\":{\"s\":{\"sum\":\"size\"}}}").get("rows").get(0).get(0).asLong());

        // the catalogue and errors, as PyKX shows them
        final List<JsonNode> other = ask(python, "pykx", rdbKdb, List.of("tables[]", "meta trade", "count trade", "select from nope",
            "select from trade where size=`IBM", "`size xdesc select[2] from trade", "select pirce from trade"));
        assertThat(other.get(0).toString()).isEqualTo("{\"vector\":\"SymbolVector\",\"values\":[\"quote\",\"trade\"]}");
        assertThat(other.get(1).get("rows").toString()).isEqualTo(
            "[[\"time\",\"p\",\"\",\"\"],[\"sym\",\"s\",\"\",\"g\"],[\"price\",\"f\",\"\",\"\"],[\"size\",\"j\",\"\",\"\"],"
                + "[\"cond\",\"c\",\"\",\"\"]]");
        assertThat(other.get(2).toString()).isEqualTo("{\"atom\":240,\"type\":\"LongAtom\"}");
        assertThat(other.get(3).toString()).isEqualTo("{\"error\":\"nope\"}");
        assertThat(other.get(4).get("error").asString()).startsWith("type [size is an integer column");
        assertThat(other.get(5).get("error").asString()).startsWith("nyi [");
        assertThat(other.get(6).toString()).isEqualTo("{\"error\":\"pirce\"}");
        final List<JsonNode> hdbCatalog = ask(python, "kola", hdbKdb, List.of("cols trade", "select n:count i by date from trade"));
        assertThat(hdbCatalog.get(0).toString()).contains("\"date\",\"time\",\"sym\"");
        assertThat(hdbCatalog.get(1).get("rows").toString()).isEqualTo("[[\"" + day1 + "\",360]]");
    }

    /** Asks each question with {@code client}; each answer must be the document's, value for value, with q's types. */
    private void check(final Path python, final String client, final int kdbPort, final int restPort, final List<Question> questions)
        throws Exception {
        final List<JsonNode> answers = ask(python, client, kdbPort, questions.stream().map(Question::q).toList());
        for (int i = 0; i < questions.size(); i++) {
            final Question q = questions.get(i);
            final JsonNode rest = ok(restPort, "POST", "/api/query", q.json());
            final JsonNode got = answers.get(i);
            assertThat(got.has("error")).as(client + ": " + q.q() + " -> " + got).isFalse();
            assertThat(rest.get("rowCount").asLong()).as(q.q() + " has rows").isPositive();
            assertThat(got.get("columns").toString()).as(client + ": " + q.q()).isEqualTo(rest.get("columns").toString());
            assertThat(qTypes(got.get("types"))).as(client + ": " + q.q()).isEqualTo(restTypes(rest.get("types")));
            assertThat(got.get("rows").toString()).as(client + ": " + q.q()).isEqualTo(rows(rest).toString());
        }
    }

    private static List<JsonNode> ask(final Path python, final String client, final int port, final List<String> queries) throws Exception {
        final Path file = Files.writeString(Files.createTempFile("q", ".txt"), String.join("\n", queries) + "\n");
        try {
            final List<String> out = KdbClientsVenv.runScript(python, 180, "kdb_query.py", client, Integer.toString(port), file.toString());
            final List<JsonNode> answers = new ArrayList<>();
            for (final String line : out) {
                if (line.startsWith("{")) {
                    answers.add(JSON.readTree(line));
                }
            }
            assertThat(answers).as(String.join("\n", out)).hasSize(queries.size());
            return answers;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** q's type names for the engine's (kola shows chars as strings: its String column). */
    private static List<String> restTypes(final JsonNode types) {
        final List<String> out = new ArrayList<>();
        types.forEach(t -> out.add(switch (t.asString()) {
            case "float64" -> "float";
            case "int64" -> "long";
            case "bool" -> "boolean";
            default -> t.asString();
        }));
        return out;
    }

    private static List<String> qTypes(final JsonNode types) {
        final List<String> out = new ArrayList<>();
        types.forEach(t -> out.add(t.asString().equals("String") ? "char" : t.asString()));
        return out;
    }

    /** The REST rows with timestamps as epoch ns, as the script prints them. */
    private static JsonNode rows(final JsonNode rest) {
        final var out = JSON.createArrayNode();
        for (final JsonNode r : rest.get("rows")) {
            final var row = out.addArray();
            for (int c = 0; c < r.size(); c++) {
                if (rest.get("types").get(c).asString().equals("timestamp") && !r.get(c).isNull()) {
                    final Instant t = Instant.parse(r.get(c).asString());
                    row.add(t.getEpochSecond() * 1_000_000_000L + t.getNano());
                } else {
                    row.add(r.get(c));
                }
            }
        }
        return out;
    }
}
