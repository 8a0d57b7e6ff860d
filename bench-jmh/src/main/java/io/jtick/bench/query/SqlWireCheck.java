package io.jtick.bench.query;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
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
 * queries (one sym's last trade) on one connection: queries/s and latency percentiles.
 * {@code SqlWireCheck [rows] [syms] [repeats] [seconds]}.
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
        final TickData data = TickData.load("synthetic", rows, syms);
        try (JtickQuerySystem jtick = new JtickQuerySystem(data, JtickQuerySystem.Layout.RDB);
             PgServer pg = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 16 << 20, 2),
                 new SqlRunner(jtick.engine(), NanoClock.SYSTEM), jtick.source(),
                 () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), new TickMetrics(), "bench");
             Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg.port()
                 + "/jtick?user=jtick&binaryTransfer=true&prepareThreshold=1")) {
            System.out.printf("%s; PostgreSQL port %d, pgJDBC binary, prepared%n", data, pg.port());
            System.out.printf("%-14s %12s %12s %8s %14s %8s%n", "median ms", "engine", "pgwire", "ratio", "rows only ms", "rows");
            for (final BenchQuery q : BenchQuery.values()) {
                final long[] engine = new long[repeats];
                final long[] wire = new long[repeats];
                final long[] next = new long[repeats];
                long n = 0;
                try (PreparedStatement ps = c.prepareStatement(sql(q, data))) {
                    for (int w = 0; w < 3; w++) {
                        jtick.run(q);
                        n = readAll(ps);
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
                    }
                }
                Arrays.sort(engine);
                Arrays.sort(wire);
                Arrays.sort(next);
                final double e = engine[repeats / 2] / 1e6;
                final double p = wire[repeats / 2] / 1e6;
                System.out.printf("%-14s %12.3f %12.3f %8.2f %14.3f %8d%n", q, e, p, p / e, next[repeats / 2] / 1e6, n);
            }
            smallQueries(c, data, seconds);
        }
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

    /** One sym's last trade, a prepared statement with a parameter, as fast as one connection goes. */
    private static void smallQueries(final Connection c, final TickData data, final int seconds) throws SQLException {
        final Histogram h = new Histogram(60_000_000_000L, 3);
        try (PreparedStatement ps = c.prepareStatement("SELECT time, price, size FROM trade WHERE sym = ? ORDER BY time DESC LIMIT 1")) {
            final long end = System.nanoTime() + seconds * 1_000_000_000L;
            long i = 0;
            final long warm = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < warm) {
                ps.setString(1, data.syms[(int) (i++ % data.syms.length)]);
                readAll(ps);
            }
            final long start = System.nanoTime();
            long done = 0;
            while (System.nanoTime() < end) {
                ps.setString(1, data.syms[(int) (i++ % data.syms.length)]);
                final long s0 = System.nanoTime();
                readAll(ps);
                h.recordValue(System.nanoTime() - s0);
                done++;
            }
            final double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("%nsmall prepared queries (one sym's last trade), one connection: %.0f queries/s; latency us p50 %.1f, "
                + "p99 %.1f, p99.9 %.1f, max %.1f (%d queries)%n", done / secs, h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3, done);
        }
    }
}
