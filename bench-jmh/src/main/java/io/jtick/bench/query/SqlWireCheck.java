package io.jtick.bench.query;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.query.result.ResultTable;
import io.jtick.sql.SqlParams;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.pg.PgServer;
import io.jtick.sql.pg.PgSettings;
import org.HdrHistogram.Histogram;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * The six questions over the PostgreSQL port (pgJDBC, binary transfer, prepared statements, every
 * value read; "rows only": the same answer with no value read, what the protocol costs without
 * the driver's decoding) against the engine's own time on the same data in the same JVM, then small prepared
 * queries (one sym's last trade) on one connection: queries/s and latency percentiles. The peer in
 * the same run: QuestDB's own PGWire server, embedded over the same data ({@link QuestDbSystem#startPgWire}),
 * its engine alone beside it. {@code SqlWireCheck [rows] [syms] [repeats] [seconds] [questdb|none]}.
 */
public final class SqlWireCheck {
    private SqlWireCheck() {
    }

    /** The question in SQL, as docs/query.md "SQL" writes it. */
    static String sql(final BenchQuery q, final TickData d) {
        return switch (q) {
            case COUNT_BY_SYM -> "SELECT sym, count(*) AS n FROM trade GROUP BY sym";
            case VWAP_BY_SYM -> "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym";
            case ONE_SYM -> "SELECT time, sym, price, size, cond FROM trade WHERE sym = '" + d.oneSym + "'";
            case BARS_1M -> "SELECT time AS minute, first(price) AS open, max(price) AS high, min(price) AS low, last(price) AS close, "
                + "sum(size) AS volume FROM trade WHERE sym = '" + d.oneSym + "' SAMPLE BY 1m";
            case ASOF -> "SELECT t.time, t.price, t.size, q.bid, q.ask FROM trade t ASOF JOIN quote q ON (sym) WHERE t.sym = '"
                + d.oneSym + "'";
            case SPREAD_BY_SYM -> "SELECT sym, avg(ask - bid) AS spread FROM quote WHERE time BETWEEN " + d.windowFrom + " AND "
                + d.windowTo + " GROUP BY sym";
        };
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        final int syms = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        final int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        final boolean peer = args.length <= 4 || !args[4].equals("none");
        final TickData data = TickData.load("synthetic", rows, syms);
        final SqlRunner runner;
        try (JtickQuerySystem jtick = new JtickQuerySystem(data, JtickQuerySystem.Layout.RDB);
             PgServer pg = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 16 << 20, 2),
                 runner = new SqlRunner(jtick.engine(), NanoClock.SYSTEM), jtick.source(),
                 () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), new TickMetrics(), "bench");
             Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg.port()
                 + "/jtick?user=jtick&binaryTransfer=true&prepareThreshold=1");
             QuestDbSystem quest = peer ? new QuestDbSystem(data) : null;
             Connection qc = quest == null ? null : DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + quest.startPgWire()
                 + "/qdb?user=admin&password=quest&binaryTransfer=true&prepareThreshold=1")) {
            System.out.printf("%s; jtick's PostgreSQL port %d%s, pgJDBC binary, prepared%n", data, pg.port(),
                quest == null ? "" : " and QuestDB " + QUESTDB + "'s own PGWire server, embedded");
            System.out.printf("%-14s %9s %9s %6s %10s %9s %9s %8s %7s%n", "median ms", "engine", "pgwire", "ratio", "rows only",
                "questdb", "qdb pg", "vs qdb", "rows");
            for (final BenchQuery q : BenchQuery.values()) {
                final long[] engine = new long[repeats];
                final long[] wire = new long[repeats];
                final long[] next = new long[repeats];
                final long[] qEngine = new long[repeats];
                final long[] qWire = new long[repeats];
                long n = 0;
                long qn = 0;
                try (PreparedStatement ps = c.prepareStatement(sql(q, data));
                     PreparedStatement qs = qc == null ? null : qc.prepareStatement(QuestDbSystem.sql(q, data))) {
                    for (int w = 0; w < 3; w++) {
                        jtick.run(q);
                        n = readAll(ps);
                        if (qs != null) {
                            quest.run(q);
                            qn = readAll(qs);
                        }
                    }
                    for (int r = 0; r < repeats; r++) {
                        long s0 = System.nanoTime();
                        jtick.run(q);
                        engine[r] = System.nanoTime() - s0;
                        s0 = System.nanoTime();
                        n = readAll(ps);
                        wire[r] = System.nanoTime() - s0;
                        s0 = System.nanoTime();
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                n += 0;
                            }
                        }
                        next[r] = System.nanoTime() - s0;
                        if (qs != null) {
                            s0 = System.nanoTime();
                            quest.run(q);
                            qEngine[r] = System.nanoTime() - s0;
                            s0 = System.nanoTime();
                            qn = readAll(qs);
                            qWire[r] = System.nanoTime() - s0;
                        }
                    }
                }
                final double e = median(engine);
                final double p = median(wire);
                final double qp = median(qWire);
                System.out.printf("%-14s %9.3f %9.3f %6.2f %10.3f %9.3f %9.3f %8.2f %7s%n", q, e, p, p / e, median(next), median(qEngine),
                    qp, quest == null ? Double.NaN : p / qp, quest == null || qn == n ? String.valueOf(n) : n + "/" + qn);
            }
            // the round trip with almost nothing to do or read: one sym's count (the client to the server's thread and back)
            final String tiny = "SELECT count(*) AS n FROM trade WHERE sym = '" + data.oneSym + "'";
            System.out.printf("%nround trip of %s (prepared), median of 2000: jtick %.3f ms%s%n", tiny, roundTrip(c, tiny),
                qc == null ? "" : String.format(", QuestDB %.3f ms", roundTrip(qc, tiny)));
            final String small = "SELECT time, price, size FROM trade WHERE sym = ? ORDER BY time DESC LIMIT 1";
            System.out.printf("%nsmall prepared queries (one sym's last trade: %s), one connection, %d s each:%n", small, seconds);
            smallQueries("jtick engine (compile + run)", data, seconds, sym -> {
                final SqlRunner.Prepared sp = runner.prepare(small, jtick.source(), SqlParams.of(List.of(sym)));
                return runner.execute(sp, jtick.source(), new ResultTable()).rows();
            });
            try (PreparedStatement ps = c.prepareStatement(small)) {
                smallQueries("jtick PGWire", data, seconds, sym -> bind(ps, sym));
            }
            if (qc != null) {
                try (PreparedStatement qs = qc.prepareStatement(small)) {
                    smallQueries("QuestDB PGWire", data, seconds, sym -> bind(qs, sym));
                }
            }
        }
    }

    /** The QuestDB version the peer runs (the jar's manifest, else unknown). */
    private static final String QUESTDB = questDbVersion();

    private static String questDbVersion() {
        try (java.io.InputStream in = SqlWireCheck.class.getResourceAsStream("/META-INF/maven/org.questdb/questdb/pom.properties")) {
            final java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "(version unknown)");
        } catch (final java.io.IOException e) {
            return "(version unknown)";
        }
    }

    private static double median(final long[] v) {
        Arrays.sort(v);
        return v[v.length / 2] / 1e6;
    }

    private static double roundTrip(final Connection c, final String sql) throws SQLException {
        final long[] t = new long[2000];
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int w = 0; w < 500; w++) {
                readAll(ps);
            }
            for (int i = 0; i < t.length; i++) {
                final long s0 = System.nanoTime();
                readAll(ps);
                t[i] = System.nanoTime() - s0;
            }
        }
        return median(t);
    }

    /** One run of a small query for a sym; returns its rows. */
    private interface SmallQuery {
        long run(String sym) throws SQLException;
    }

    private static long bind(final PreparedStatement ps, final String sym) throws SQLException {
        ps.setString(1, sym);
        return readAll(ps);
    }

    /** Reads every value of the statement's answer; returns the rows. */
    private static long readAll(final PreparedStatement ps) throws SQLException {
        long rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            final int cols = rs.getMetaData().getColumnCount();
            long sink = 0;
            while (rs.next()) {
                for (int i = 1; i <= cols; i++) {
                    final Object o = rs.getObject(i);
                    sink += o == null ? 0 : o.hashCode();
                }
                rows++;
            }
            if (sink == 42) {
                System.out.print("");
            }
        }
        return rows;
    }

    /** One sym's last trade, a statement with a parameter, as fast as one connection goes: queries/s and latency. */
    private static void smallQueries(final String who, final TickData data, final int seconds, final SmallQuery query)
        throws SQLException {
        final Histogram h = new Histogram(60_000_000_000L, 3);
        long i = 0;
        final long warm = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < warm) {
            query.run(data.syms[(int) (i++ % data.syms.length)]);
        }
        final long start = System.nanoTime();
        final long end = start + seconds * 1_000_000_000L;
        long done = 0;
        while (System.nanoTime() < end) {
            final String sym = data.syms[(int) (i++ % data.syms.length)];
            final long s0 = System.nanoTime();
            if (query.run(sym) != 1) {
                throw new IllegalStateException("no last trade [system=" + who + ", sym=" + sym + "]");
            }
            h.recordValue(System.nanoTime() - s0);
            done++;
        }
        final double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("  %-30s %8.0f queries/s; latency us p50 %7.1f, p99 %8.1f, p99.9 %8.1f, max %8.1f (%d queries)%n", who,
            done / secs, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getMaxValue() / 1e3, done);
    }
}
