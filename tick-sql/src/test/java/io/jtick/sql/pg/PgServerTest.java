package io.jtick.sql.pg;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySource;
import io.jtick.core.testing.LeakCheck;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.SqlTestData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The PostgreSQL port with real clients: pgJDBC (text and binary), psql, and raw bytes. */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(perClass = true, ignoreThreads = "PostgreSQL-JDBC-.*|pg-.*|Cleaner-\\d+")
class PgServerTest {
    private static final MemorySource SOURCE = SqlTestData.source(4000);
    private static final QueryEngine ENGINE = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
    private static final List<TableSchema> TABLES = List.of(TableSchema.trade(0), TableSchema.quote(0));
    /** The six benchmark questions: the document and the SQL. */
    static final Map<String, String> SIX = new java.util.LinkedHashMap<>();

    static {
        SIX.put("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "SELECT sym, count(*) AS n FROM trade GROUP BY sym");
        SIX.put("{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}",
            "SELECT time, sym, price, size, cond FROM trade WHERE sym = 'S07'");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
            + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
            + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            "SELECT time AS minute, first(price) AS open, max(price) AS high, min(price) AS low, last(price) AS close, "
                + "sum(size) AS volume FROM trade WHERE sym = 'S07' SAMPLE BY 1m");
        SIX.put("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}",
            "SELECT t.time, t.price, t.size, q.bid, q.ask FROM trade t ASOF JOIN quote q ON (sym) WHERE t.sym = 'S07'");
        SIX.put("{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"2026-11-21T10:00:00Z\",\"2026-11-21T11:00:00Z\"]}},"
            + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}",
            "SELECT sym, avg(ask - bid) AS spread FROM quote WHERE time BETWEEN '2026-11-21T10:00:00Z' AND '2026-11-21T11:00:00Z' "
                + "GROUP BY sym");
    }

    private static PgServer server;
    private static PgServer guarded;

    @BeforeAll
    static void start() {
        final SqlRunner runner = new SqlRunner(ENGINE, () -> 0L);
        server = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 1 << 20, 2), runner, SOURCE, () -> TABLES,
            new TickMetrics(), "test");
        guarded = new PgServer(new PgSettings("127.0.0.1", 0, new AccessSettings("s3cret-token", AccessSettings.Guard.ALWAYS, true),
            1 << 20, 1), runner, SOURCE, () -> TABLES, new TickMetrics(), "guarded");
    }

    @AfterAll
    static void stop() {
        server.close();
        guarded.close();
    }

    private static Connection connect(final PgServer s, final String extra) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + s.port() + "/jtick?user=jtick" + extra);
    }

    @Test
    void shouldAnswerTheSixQuestionsAsTheEngineDoesInTextAndBinary() throws Exception {
        for (final String extra : List.of("&preferQueryMode=simple", "&prepareThreshold=-1&binaryTransfer=true", "")) {
            try (Connection c = connect(server, extra)) {
                for (final Map.Entry<String, String> q : SIX.entrySet()) {
                    final ResultTable expected = ENGINE.query(q.getKey(), SOURCE);
                    assertThat(expected.rowCount()).isPositive();
                    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(q.getValue())) {
                        assertThat(rows(rs)).as("%s %s", extra, q.getValue()).isEqualTo(expectedRows(expected));
                    }
                }
            }
        }
    }

    /**
     * Statements whose answers are bounded run on the event loop, the others on a worker: on one
     * connection, alternating, every answer still comes whole and in order (a worker's last writes
     * are not overtaken by the event loop's).
     */
    @Test
    void shouldKeepAnswersInOrderBetweenTheEventLoopAndTheWorkers() throws Exception {
        final ResultTable all = ENGINE.query("{\"table\":\"trade\"}", SOURCE);
        try (Connection c = connect(server, "&prepareThreshold=1&binaryTransfer=true");
             PreparedStatement big = c.prepareStatement("SELECT * FROM trade");
             PreparedStatement small = c.prepareStatement("SELECT time, price FROM trade WHERE sym = ? ORDER BY time DESC LIMIT 1");
             PreparedStatement fixed = c.prepareStatement("SELECT sym, count(*) AS n FROM trade GROUP BY sym ORDER BY sym LIMIT 3")) {
            for (int i = 0; i < 20; i++) {
                try (ResultSet rs = big.executeQuery()) {
                    assertThat(rows(rs)).hasSize(all.rowCount());
                }
                small.setString(1, "S0" + (i % 10));
                try (ResultSet rs = small.executeQuery()) {
                    assertThat(rows(rs)).hasSize(1);
                }
                try (ResultSet rs = fixed.executeQuery()) {
                    assertThat(rows(rs)).isEqualTo(expectedRows(ENGINE.query("{\"table\":\"trade\",\"select\":{\"n\":"
                        + "{\"count\":\"*\"}},\"by\":\"sym\",\"orderBy\":[\"sym\"],\"limit\":3}", SOURCE)));
                }
            }
        }
    }

    @Test
    void shouldRunPreparedStatementsWithParametersAndMetadata() throws Exception {
        try (Connection c = connect(server, "&prepareThreshold=1")) {
            try (PreparedStatement ps = c.prepareStatement("SELECT time, price FROM trade WHERE sym = ? AND size >= ? ORDER BY time DESC "
                + "LIMIT 1")) {
                for (int i = 0; i < 10; i++) {
                    ps.setString(1, "S0" + i);
                    ps.setLong(2, 1000);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        final ResultTable e = ENGINE.query("{\"table\":\"trade\",\"where\":{\"sym\":\"S0" + i + "\",\"size\":"
                            + "{\">=\":1000}},"
                            + "\"select\":[\"time\",\"price\"],\"orderBy\":[\"-time\"],\"limit\":1}", SOURCE);
                        assertThat(rs.getTimestamp(1).toInstant().getEpochSecond()).isEqualTo(e.getLong(0, 0) / 1_000_000_000L);
                        assertThat(rs.getDouble(2)).isEqualTo(e.getDouble(0, 1));
                    }
                }
            }
            try (ResultSet rs = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
                final List<String> names = new ArrayList<>();
                while (rs.next()) {
                    names.add(rs.getString("TABLE_NAME"));
                }
                assertThat(names).containsExactly("trade", "quote");
            }
            try (ResultSet rs = c.getMetaData().getColumns(null, null, "trade", null)) {
                final List<String> cols = new ArrayList<>();
                while (rs.next()) {
                    cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME"));
                }
                assertThat(cols).containsExactly("time:timestamptz", "sym:varchar", "price:float8", "size:int8", "cond:bpchar");
            }
            try (Statement st = c.createStatement()) {
                // Grafana's query builder lists tables and columns this way
                try (ResultSet rs = st.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
                    + "ORDER BY table_name")) {
                    assertThat(rows(rs)).containsExactlyInAnyOrder(List.of("trade"), List.of("quote"));
                }
                try (ResultSet rs = st.executeQuery("SELECT column_name, data_type FROM information_schema.columns "
                    + "WHERE table_name = 'quote'")) {
                    assertThat(rows(rs)).hasSize(6).contains(List.of("bid", "double precision"));
                }
                st.execute("SET application_name = 'jtick-test'");
                try (ResultSet rs = st.executeQuery("SHOW application_name")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("jtick-test");
                }
                assertThatThrownBy(() -> st.executeQuery("SELECT pirce FROM trade")).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).isEqualTo("42703"));
                assertThatThrownBy(() -> st.executeQuery("SELECT * FROM trade t JOIN quote q ON t.sym = q.sym"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("0A000"));
                // the connection still serves after errors
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM trade")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(8000);
                }
            }
        }
    }

    @Test
    void shouldReadAPortalInPartsWithAFetchSize() throws Exception {
        try (Connection c = connect(server, "")) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(100);
                try (ResultSet rs = st.executeQuery("SELECT time, sym, price FROM trade")) {
                    int n = 0;
                    while (rs.next()) {
                        n++;
                    }
                    assertThat(n).isEqualTo(8000);
                }
            }
        }
    }

    @Test
    void shouldAskForTheTokenWithScramOrCleartextWhereGuarded() throws Exception {
        assertThatThrownBy(() -> connect(guarded, "&password=wrong")).isInstanceOfSatisfying(SQLException.class,
            e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
        try (Connection c = connect(guarded, "&password=s3cret-token"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM quote")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(8000);
        }
        try (Connection c = connect(guarded, "&password=s3cret-token&options=-c%20jtick.auth=password")) {
            assertThat(c.isValid(5)).isTrue();
        }
    }

    @Test
    void shouldAnswerBadInputWithAnErrorAndKeepServing() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(8);
            out.writeInt(80_877_103); // SSLRequest
            out.flush();
            assertThat(s.getInputStream().read()).isEqualTo('N');
            out.writeInt(8);
            out.writeInt(2 << 16); // protocol 2.0
            out.flush();
            final DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(in.readByte()).isEqualTo((byte) 'E');
            final byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).contains("0A000").contains("unsupported frontend protocol 2.0");
        }
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(Integer.MAX_VALUE); // an oversized start-up message
            out.flush();
            final DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(in.readByte()).isEqualTo((byte) 'E');
        }
        try (Socket s = new Socket("127.0.0.1", guarded.port())) {
            // a query before authentication
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            final byte[] params = "user\0jtick\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196_608);
            out.write(params);
            out.flush();
            final DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(in.readByte()).isEqualTo((byte) 'R');
            in.readFully(new byte[in.readInt() - 4]);
            final byte[] q = "SELECT 1\0".getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + q.length);
            out.write(q);
            out.flush();
            assertThat(in.readByte()).isEqualTo((byte) 'E');
            final byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).contains("08P01").contains("message before authentication");
        }
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            // an unknown message type: an error, and the connection goes on serving
            s.setSoTimeout(10_000);
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            final byte[] params = "user\0jtick\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196_608);
            out.write(params);
            out.flush();
            final DataInputStream in = new DataInputStream(s.getInputStream());
            assertThat(until(in, 'Z')).startsWith("R").endsWith("K");
            out.writeByte('z');
            out.writeInt(4);
            final byte[] q = "SELECT count(*) FROM trade\0".getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + q.length);
            out.write(q);
            out.flush();
            assertThat(until(in, 'E')).isEmpty();
            assertThat(until(in, 'Z')).contains("T", "D", "C");
        }
        try (Connection c = connect(server, ""); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
            assertThat(rs.next()).isTrue();
        }
    }

    /**
     * A client that does not read: the statement waits at the socket's high-water mark (the answer
     * is never built in memory) until a CancelRequest with the connection's key stops it with 57014;
     * the connection then serves the next statement.
     */
    @Test
    void shouldPaceASlowClientAndCancelOnRequest() throws Exception {
        final io.jtick.core.table.MemorySegment.Builder b = io.jtick.core.table.MemorySegment.builder(TableSchema.trade(0), 20_000);
        final long t0 = 20_000L * 86_400_000_000_000L;
        for (int i = 0; i < 400_000; i++) {
            b.value(t0 + i).symbol("S" + (i % 100)).value(100.0 + i % 7).value((long) i).value((byte) 'A').endRow();
        }
        final MemorySource big = new MemorySource().add(b.build());
        try (PgServer pg = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 1 << 20, 1),
            new SqlRunner(ENGINE, () -> 0L), big, () -> List.of(TableSchema.trade(0)), new TickMetrics(), "slow");
             Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024);
            s.connect(new java.net.InetSocketAddress("127.0.0.1", pg.port()));
            s.setSoTimeout(20_000);
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            final byte[] params = "user\0jtick\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196_608);
            out.write(params);
            out.flush();
            final DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(s.getInputStream()));
            int pid = 0;
            int secret = 0;
            while (true) {
                final char t = (char) in.readByte();
                final byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                if (t == 'K') {
                    pid = java.nio.ByteBuffer.wrap(body).getInt(0);
                    secret = java.nio.ByteBuffer.wrap(body).getInt(4);
                }
                if (t == 'Z') {
                    break;
                }
            }
            final byte[] q = "SELECT time, sym, price, size FROM trade\0".getBytes(StandardCharsets.UTF_8);
            out.writeByte('Q');
            out.writeInt(4 + q.length);
            out.write(q);
            out.flush();
            // the client reads nothing: the server fills the socket and its high-water mark, then waits
            io.jtick.core.testing.TestSupport.await("the statement runs", java.time.Duration.ofSeconds(20), () -> pg.statements.get() == 1);
            try (Socket cancel = new Socket("127.0.0.1", pg.port())) {
                final DataOutputStream c = new DataOutputStream(cancel.getOutputStream());
                c.writeInt(16);
                c.writeInt(80_877_102);
                c.writeInt(pid);
                c.writeInt(secret);
                c.flush();
                assertThat(cancel.getInputStream().read()).isEqualTo(-1);
            }
            long rows = 0;
            String error = null;
            while (true) {
                final char t = (char) in.readByte();
                final byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                if (t == 'D') {
                    rows++;
                } else if (t == 'E') {
                    error = new String(body, StandardCharsets.UTF_8);
                } else if (t == 'Z') {
                    break;
                }
            }
            assertThat(error).as("rows before the cancel: %d", rows).contains("57014").contains("canceling statement due to user request");
            assertThat(rows).isPositive().isLessThan(400_000);
            assertThat(pg.cancelled.get()).isPositive();
        }
    }

    @Test
    void shouldServePsql() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/psql")), "psql is not installed (Debian package postgresql-client; .ci/run "
            + "installs it)");
        assertThat(psql("\\dt")).contains("public|trade|table|jtick").contains("public|quote|table|jtick");
        assertThat(psql("\\d trade")).contains("time|timestamp with time zone").contains("sym|character varying")
            .contains("price|double precision").contains("cond|character(1)");
        final String vwap = psql("SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym");
        final ResultTable e = ENGINE.query(SIX.keySet().toArray(new String[0])[1], SOURCE);
        assertThat(vwap).contains(e.getString(0, 0) + "|" + e.getDouble(0, 1) + "|" + e.getLong(0, 2));
    }

    /** Reads messages up to one of type {@code type} (its body skipped); returns the types read before it. */
    private static List<String> until(final DataInputStream in, final char type) throws java.io.IOException {
        final List<String> seen = new ArrayList<>();
        while (true) {
            final char t = (char) in.readByte();
            in.readFully(new byte[in.readInt() - 4]);
            if (t == type) {
                return seen;
            }
            seen.add(String.valueOf(t));
        }
    }

    private static String psql(final String command) throws Exception {
        final Process p = new ProcessBuilder("/usr/bin/psql", "-X", "-h", "127.0.0.1", "-p", String.valueOf(server.port()), "-U", "jtick",
            "-d", "jtick", "-v", "ON_ERROR_STOP=1", "-A", "-c", command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.replace(" | ", "|").replaceAll("(?m)^(\\S+)\\s*\\|", "$1|");
    }

    private static List<List<Object>> rows(final ResultSet rs) throws SQLException {
        final List<List<Object>> out = new ArrayList<>();
        final int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            final List<Object> row = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                final int type = rs.getMetaData().getColumnType(i);
                if (type == java.sql.Types.TIMESTAMP || type == java.sql.Types.TIMESTAMP_WITH_TIMEZONE) {
                    final java.time.OffsetDateTime t = rs.getObject(i, java.time.OffsetDateTime.class);
                    row.add(t == null ? null : t.toInstant().getEpochSecond() * 1_000_000L + t.getNano() / 1000);
                } else {
                    row.add(rs.getObject(i));
                }
            }
            out.add(row);
        }
        return out;
    }

    /** The engine's rows as pgJDBC reads them: timestamps in microseconds, symbols and chars as strings. */
    private static List<List<Object>> expectedRows(final ResultTable t) {
        final List<List<Object>> out = new ArrayList<>();
        for (int r = 0; r < t.rowCount(); r++) {
            final List<Object> row = new ArrayList<>();
            for (int c = 0; c < t.types().size(); c++) {
                final ValueType type = t.types().get(c);
                if (t.isNull(r, c)) {
                    row.add(null);
                } else if (type == ValueType.TIMESTAMP) {
                    row.add(Math.floorDiv(t.getLong(r, c), 1000L));
                } else if (type == ValueType.CHAR) {
                    row.add(String.valueOf((char) t.getLong(r, c)));
                } else {
                    row.add(t.get(r, c));
                }
            }
            out.add(row);
        }
        return out;
    }
}
