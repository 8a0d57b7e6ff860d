package io.jtick.bench.query;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * Embedded DuckDB, in memory, all its default threads (one per core). sym is an ENUM (DuckDB's
 * closest thing to a kdb sym: a dictionary-encoded string), cond a VARCHAR, times TIMESTAMP
 * (microseconds). Rows go in through the Appender in time order. Statements are prepared once;
 * timestamps come back as {@code epoch_us(...)} BIGINTs, so reading them is a long read.
 */
public final class DuckDbSystem implements QuerySystem {
    private final String name;
    private final Connection conn;
    private final Map<BenchQuery, PreparedStatement> prepared = new EnumMap<>(BenchQuery.class);
    private final AutoCloseable owned;

    /** DuckDB over tables or views {@code conn} already has, named {@code name}; {@code owned} closes after it. */
    DuckDbSystem(final String name, final Connection conn, final TickData d, final AutoCloseable owned) throws Exception {
        this.name = name;
        this.conn = conn;
        this.owned = owned;
        for (final BenchQuery q : BenchQuery.values()) {
            prepared.put(q, conn.prepareStatement(sql(q, d)));
        }
    }

    public DuckDbSystem(final TickData d) throws Exception {
        name = "duckdb";
        owned = null;
        conn = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement s = conn.createStatement()) {
            final StringBuilder enumValues = new StringBuilder();
            for (final String sym : d.syms) {
                enumValues.append(enumValues.length() == 0 ? "" : ",").append('\'').append(sym).append('\'');
            }
            s.execute("CREATE TYPE symbol AS ENUM (" + enumValues + ")");
            s.execute("CREATE TABLE trade (time TIMESTAMP, sym symbol, price DOUBLE, size BIGINT, cond VARCHAR)");
            s.execute("CREATE TABLE quote (time TIMESTAMP, sym symbol, bid DOUBLE, ask DOUBLE, bsize BIGINT, asize BIGINT)");
        }
        final DuckDBConnection duck = conn.unwrap(DuckDBConnection.class);
        final String[] conds = new String[256];
        for (int c = 0; c < 256; c++) {
            conds[c] = String.valueOf((char) c);
        }
        try (DuckDBAppender a = duck.createAppender("main", "trade")) {
            for (int i = 0; i < d.trades; i++) {
                a.beginRow().appendEpochMicros(d.tTime[i] / 1000).append(d.syms[d.tSym[i]]).append(d.tPrice[i]).append(d.tSize[i])
                    .append(conds[d.tCond[i] & 0xff]).endRow();
            }
        }
        try (DuckDBAppender a = duck.createAppender("main", "quote")) {
            for (int i = 0; i < d.quotes; i++) {
                a.beginRow().appendEpochMicros(d.qTime[i] / 1000).append(d.syms[d.qSym[i]]).append(d.qBid[i]).append(d.qAsk[i])
                    .append(d.qBsize[i]).append(d.qAsize[i]).endRow();
            }
        }
        for (final BenchQuery q : BenchQuery.values()) {
            prepared.put(q, conn.prepareStatement(sql(q, d)));
        }
    }

    @Override
    public String name() {
        return name;
    }

    static String sql(final BenchQuery q, final TickData d) {
        final String sym = "'" + d.oneSym + "'";
        switch (q) {
            case COUNT_BY_SYM:
                return "SELECT sym, count(*) AS n FROM trade GROUP BY sym ORDER BY sym";
            case VWAP_BY_SYM:
                return "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym ORDER BY sym";
            case ONE_SYM:
                return "SELECT epoch_us(time), sym, price, size, cond FROM trade WHERE sym = " + sym;
            case BARS_1M:
                return "SELECT epoch_us(time_bucket(INTERVAL 1 MINUTE, time)) AS minute, arg_min(price, time) AS open, max(price) AS high,"
                    + " min(price) AS low, arg_max(price, time) AS close, sum(size) AS volume FROM trade WHERE sym = " + sym
                    + " GROUP BY minute ORDER BY minute";
            case ASOF:
                return "SELECT epoch_us(t.time), t.price, t.size, q.bid, q.ask FROM (SELECT * FROM trade WHERE sym = " + sym + ") t"
                    + " ASOF LEFT JOIN (SELECT * FROM quote WHERE sym = " + sym + ") q ON t.sym = q.sym AND t.time >= q.time"
                    + " ORDER BY t.time";
            case SPREAD_BY_SYM:
                return "SELECT sym, avg(ask - bid) AS spread FROM quote WHERE time BETWEEN " + ts(d.windowFrom) + " AND " + ts(d.windowTo)
                    + " GROUP BY sym ORDER BY sym";
            default:
                throw new IllegalArgumentException(q.name());
        }
    }

    private static String ts(final long nanos) {
        return "TIMESTAMP '" + Instant.ofEpochSecond(0, nanos).toString().replace('T', ' ').replace("Z", "") + "'";
    }

    @Override
    public long run(final BenchQuery q) throws Exception {
        long sum = 0;
        try (ResultSet rs = prepared.get(q).executeQuery()) {
            final ResultSetMetaData md = rs.getMetaData();
            final int n = md.getColumnCount();
            final int[] kinds = new int[n];
            for (int c = 0; c < n; c++) {
                kinds[c] = md.getColumnType(c + 1);
            }
            while (rs.next()) {
                for (int c = 0; c < n; c++) {
                    switch (kinds[c]) {
                        case Types.DOUBLE:
                            sum += Double.doubleToRawLongBits(rs.getDouble(c + 1));
                            break;
                        case Types.BIGINT:
                        case Types.INTEGER:
                            sum += rs.getLong(c + 1);
                            break;
                        default:
                            final String s = rs.getString(c + 1);
                            sum += s == null ? 1 : s.length();
                            break;
                    }
                }
                sum += 31;
            }
        }
        return sum;
    }

    @Override
    public Answer answer(final BenchQuery q) throws Exception {
        final Answer a = new Answer();
        try (ResultSet rs = prepared.get(q).executeQuery()) {
            final ResultSetMetaData md = rs.getMetaData();
            final int n = md.getColumnCount();
            while (rs.next()) {
                final Object[] row = new Object[n];
                for (int c = 0; c < n; c++) {
                    final Object v = rs.getObject(c + 1);
                    row[c] = v instanceof Number num && !(v instanceof Double) ? (Object) num.longValue() : v == null ? null
                        : v instanceof Double ? v : v.toString();
                }
                a.add(row);
            }
        }
        return a;
    }

    @Override
    public void close() throws Exception {
        for (final PreparedStatement p : prepared.values()) {
            p.close();
        }
        conn.close();
        if (owned != null) {
            owned.close();
        }
    }
}
