package io.jtick.sql.kdb;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySource;
import io.jtick.core.testing.LeakCheck;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.SqlTestData;
import io.jtick.sql.q.QValue;
import io.jtick.sql.q.QValues;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
@LeakCheck.Options(perClass = true, ignoreThreads = "kdb-.*|Cleaner-\\d+")
class KdbQueryServerTest {
    private static final MemorySource SOURCE = SqlTestData.source(4000);
    private static final QueryEngine ENGINE = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
    private static final List<TableSchema> TABLES = List.of(TableSchema.trade(0), TableSchema.quote(0));
    /** The six benchmark questions: the document and the q. */
    static final Map<String, String> SIX = new LinkedHashMap<>();

    static {
        SIX.put("{\"table\":\"trade\",\"select\":{\"x\":{\"count\":\"*\"}},\"by\":\"sym\"}", "select count i by sym from trade");
        SIX.put("{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "select vwap:size wavg price, n:count i by sym from trade");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}",
            "select time, sym, price, size, cond from trade where sym=`S07");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
            + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
            + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            "select open:first price, high:max price, low:min price, close:last price, volume:sum size by minute:1 xbar time.minute "
                + "from trade where sym=`S07");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}",
            "aj[`sym`time; select time, price, size from trade where sym=`S07; select time, sym, bid, ask from quote]");
        SIX.put("{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"2026-11-21T10:00:00Z\",\"2026-11-21T11:00:00Z\"]}},"
            + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}",
            "select spread:avg ask-bid by sym from quote where time within 2026.11.21D10:00 2026.11.21D11:00");
    }

    private static KdbQueryServer server;
    private static KdbQueryServer guarded;
    private static TickMetrics metrics = new TickMetrics();
    private static Path users;

    @BeforeAll
    static void start() throws Exception {
        final SqlRunner runner = new SqlRunner(ENGINE, () -> 0L);
        server = new KdbQueryServer(new KdbQuerySettings("127.0.0.1", KdbSettings.onPort(0), 1 << 16, 2, false), runner, SOURCE,
            () -> TABLES, metrics, "test");
        users = Files.createTempFile("kdb-users", ".txt");
        Files.writeString(users, "alice:wonder\n");
        guarded = new KdbQueryServer(new KdbQuerySettings("127.0.0.1", new KdbSettings(0, users, AccessSettings.DEFAULT), 1 << 16, 1,
            true), runner, SOURCE, () -> TABLES, new TickMetrics(), "guarded");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        guarded.close();
        Files.deleteIfExists(users);
    }

    @Test
    void shouldAnswerTheSixQuestionsAsTheEngineDoes() throws Exception {
        try (KdbTestClient c = new KdbTestClient(server.port(), "")) {
            assertThat(c.capability).isEqualTo(3);
            for (final Map.Entry<String, String> q : SIX.entrySet()) {
                final ResultTable expected = ENGINE.query(q.getKey(), SOURCE);
                assertThat(expected.rowCount()).isPositive();
                final QValue answer = c.sync(q.getValue());
                assertThat(answer.type()).as(q.getValue()).isIn(KdbType.TABLE, KdbType.DICT);
                assertThat(rows(answer)).as(q.getValue()).isEqualTo(expected.rows());
            }
        }
    }

    @Test
    void shouldAnswerQErrorsAndKeepServing() throws Exception {
        try (KdbTestClient c = new KdbTestClient(server.port(), "")) {
            assertThat(c.sync("select from nope")).isEqualTo(new QValue(KdbType.ERROR, "nope"));
            assertThat(c.sync("`price xasc select[2] from trade").text()).startsWith("nyi [");
            assertThat(c.sync("select from trade where sym=1").text()).startsWith("type [");
            assertThat(c.sync("count trade")).isEqualTo(new QValue(-KdbType.LONG, 8000L));
            assertThat((String[]) c.sync("tables[]").data()).containsExactly("quote", "trade");
        }
        assertThat(metrics.counters().get("tick.kdb.errors|service=test").get()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void shouldCloseOnlyTheConnectionThatSentAMalformedMessage() throws Exception {
        try (KdbTestClient good = new KdbTestClient(server.port(), ""); KdbTestClient bad = new KdbTestClient(server.port(), "")) {
            // a sync char vector claiming 1000 chars in a 20-byte message
            bad.sendRaw(new byte[] {1, 1, 0, 0, 20, 0, 0, 0, 10, 0, (byte) 0xe8, 3, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f'});
            final QValue error = bad.receive();
            assertThat(error.type()).isEqualTo(KdbType.ERROR);
            assertThat(error.text()).startsWith("malformed kdb+ message");
            assertThat(bad.closedByServer()).isTrue();
            assertThat(good.sync("count trade").longValue()).isEqualTo(8000L);
        }
        try (KdbTestClient big = new KdbTestClient(server.port(), "")) {
            big.sendRaw(new byte[] {1, 1, 0, 0, 0, 0, 16, 0});
            assertThat(big.receive().text()).startsWith("limit [");
            assertThat(big.closedByServer()).isTrue();
        }
        assertThat(metrics.counters().get("tick.kdb.bad-messages|service=test").get()).isGreaterThanOrEqualTo(2);
    }

    /** PyKX's qsql.select: (lambda; `trade; ("{parse each x}"; enlist "sym=`S07"); 0b; ("{key[x]!...}"; columns)). */
    @Test
    void shouldAnswerAFunctionalSelectAsPyKXSendsIt() throws Exception {
        try (KdbTestClient c = new KdbTestClient(server.port(), "")) {
            final ByteBuf m = KdbWriter.begin(ByteBufAllocator.DEFAULT, KdbDescriptor.SYNC, 512);
            KdbWriter.list(m, 5);
            KdbWriter.chars(m, "{[tab;x;y;z]?[tab;value x;value y;value z]}");
            KdbWriter.symbol(m, "trade");
            KdbWriter.list(m, 2);
            KdbWriter.chars(m, "{parse each x}");
            KdbWriter.list(m, 1);
            KdbWriter.chars(m, "sym=`S07");
            KdbWriter.list(m, 2);
            KdbWriter.chars(m, "{x}");
            m.writeByte(-KdbType.BOOLEAN).writeByte(0);
            KdbWriter.list(m, 2);
            KdbWriter.chars(m, "{key[x]!{$[0=x 0;(::);1=x 0;parse;(::)] x 1}each value x}");
            m.writeByte(KdbType.DICT);
            KdbWriter.vector(m, KdbType.SYMBOL, 2);
            m.writeBytes("n\0v\0".getBytes(StandardCharsets.US_ASCII));
            KdbWriter.list(m, 2);
            KdbWriter.list(m, 2);
            KdbWriter.longAtom(m, 1);
            KdbWriter.chars(m, "count i");
            KdbWriter.list(m, 2);
            KdbWriter.longAtom(m, 1);
            KdbWriter.chars(m, "size wavg price");
            c.send(KdbWriter.end(m));
            final QValue answer = c.receive();
            assertThat(rows(answer)).isEqualTo(ENGINE.query("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"n\":"
                + "{\"count\":\"*\"},\"v\":{\"wavg\":[\"size\",\"price\"]}}}", SOURCE).rows());
            // a lambda to evaluate is not a query: nyi, and the connection goes on
            final ByteBuf f = KdbWriter.begin(ByteBufAllocator.DEFAULT, KdbDescriptor.SYNC, 64);
            KdbWriter.list(f, 3);
            KdbWriter.chars(f, "{x+y}");
            KdbWriter.longAtom(f, 1);
            KdbWriter.longAtom(f, 2);
            c.send(KdbWriter.end(f));
            assertThat(c.receive().text()).startsWith("nyi [a call {x+y}");
            assertThat(c.sync("count trade").longValue()).isEqualTo(8000L);
        }
    }

    @Test
    void shouldCheckLoginsAgainstTheUsersFile() throws Exception {
        try (KdbTestClient wrong = new KdbTestClient(guarded.port(), "alice:nope")) {
            assertThat(wrong.capability).isEqualTo(-1);
        }
        try (KdbTestClient alice = new KdbTestClient(guarded.port(), "alice:wonder")) {
            assertThat(alice.capability).isEqualTo(3);
            final QValue cols = alice.sync("cols trade");
            assertThat((String[]) cols.data()).startsWith("date", "time", "sym");
            final QValue byDate = alice.sync("select n:count i by date from trade where date within 2026.11.20 2026.11.21");
            assertThat(rows(byDate)).isEqualTo(ENGINE.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"date\"}",
                SOURCE).rows());
        }
    }

    /** A table's or keyed table's rows, boxed as ResultTable boxes them. */
    static List<List<Object>> rows(final QValue v) {
        final List<QValue> cols = new ArrayList<>();
        columns(v, cols);
        final List<List<Object>> out = new ArrayList<>();
        for (int r = 0; r < cols.get(0).count(); r++) {
            final List<Object> row = new ArrayList<>();
            for (final QValue c : cols) {
                final QValue a = c.item(r);
                row.add(a.data() instanceof Double d ? (Double.isNaN(d) ? null : d)
                    : a.data() instanceof Long l ? (l == QValue.NULL_LONG ? null : l) : a.data());
            }
            out.add(row);
        }
        return out;
    }

    private static void columns(final QValue v, final List<QValue> out) {
        if (v.type() == KdbType.DICT) {
            columns(QValues.parts(v)[0], out);
            columns(QValues.parts(v)[1], out);
            return;
        }
        final QValue cols = QValues.parts(v)[1];
        for (int c = 0; c < cols.count(); c++) {
            out.add(cols.item(c));
        }
    }
}
