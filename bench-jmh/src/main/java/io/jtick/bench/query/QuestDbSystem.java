package io.jtick.bench.query;

import io.questdb.cairo.CairoEngine;
import io.questdb.cairo.ColumnType;
import io.questdb.cairo.DefaultCairoConfiguration;
import io.questdb.cairo.TableWriter;
import io.questdb.cairo.security.AllowAllSecurityContext;
import io.questdb.cairo.sql.Record;
import io.questdb.cairo.sql.RecordCursor;
import io.questdb.cairo.sql.RecordCursorFactory;
import io.questdb.cairo.sql.RecordMetadata;
import io.questdb.cutlass.pgwire.DefaultPGCircuitBreakerRegistry;
import io.questdb.cutlass.pgwire.DefaultPGConfiguration;
import io.questdb.cutlass.pgwire.PGServer;
import io.questdb.griffin.SqlExecutionContextImpl;
import io.questdb.mp.WorkerPool;
import io.questdb.mp.WorkerPoolUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Embedded QuestDB (its Cairo engine, data in a temp directory) with a query worker pool of one
 * thread per core, as a server would run. Tables have a designated timestamp, a day partition,
 * {@code SYMBOL} syms with an index (QuestDB's sym index, like kdb's {@code g#}), no WAL (rows go
 * straight in through a TableWriter in time order). Queries are compiled once to cursor factories.
 */
public final class QuestDbSystem implements QuerySystem {
    static {
        // QuestDB logs every statement at INFO on stdout; keep errors only (its "out" property names a log config)
        try {
            final Path conf = Files.createTempFile("jtick-questdb-log", ".conf");
            Files.writeString(conf, "writers=stdout\nw.stdout.class=io.questdb.log.LogConsoleWriter\nw.stdout.level=ERROR\n");
            conf.toFile().deleteOnExit();
            if (System.getProperty("out") == null) {
                System.setProperty("out", conf.toString());
            }
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private final Path dir;
    private final CairoEngine engine;
    private final WorkerPool pool;
    private final SqlExecutionContextImpl ctx;
    private final Map<BenchQuery, RecordCursorFactory> factories = new EnumMap<>(BenchQuery.class);
    private WorkerPool pgPool;
    private PGServer pgServer;

    public QuestDbSystem(final TickData d) throws Exception {
        dir = Files.createTempDirectory("jtick-questdb-");
        final int workers = Runtime.getRuntime().availableProcessors();
        engine = new CairoEngine(new DefaultCairoConfiguration(dir.toString()));
        pool = new WorkerPool(() -> workers);
        WorkerPoolUtils.setupQueryJobs(pool, engine);
        pool.start();
        ctx = new SqlExecutionContextImpl(engine, workers).with(AllowAllSecurityContext.INSTANCE);
        engine.execute("CREATE TABLE trade (time TIMESTAMP, sym SYMBOL CAPACITY " + Math.max(128, d.syms.length * 2)
            + " CACHE INDEX, price DOUBLE, size LONG, cond CHAR) TIMESTAMP(time) PARTITION BY DAY BYPASS WAL", ctx);
        engine.execute("CREATE TABLE quote (time TIMESTAMP, sym SYMBOL CAPACITY " + Math.max(128, d.syms.length * 2)
            + " CACHE INDEX, bid DOUBLE, ask DOUBLE, bsize LONG, asize LONG) TIMESTAMP(time) PARTITION BY DAY BYPASS WAL", ctx);
        try (TableWriter w = engine.getWriter(engine.verifyTableName("trade"), "load")) {
            for (int i = 0; i < d.trades; i++) {
                final TableWriter.Row r = w.newRow(d.tTime[i] / 1000);
                r.putSym(1, d.syms[d.tSym[i]]);
                r.putDouble(2, d.tPrice[i]);
                r.putLong(3, d.tSize[i]);
                r.putChar(4, (char) (d.tCond[i] & 0xff));
                r.append();
            }
            w.commit();
        }
        try (TableWriter w = engine.getWriter(engine.verifyTableName("quote"), "load")) {
            for (int i = 0; i < d.quotes; i++) {
                final TableWriter.Row r = w.newRow(d.qTime[i] / 1000);
                r.putSym(1, d.syms[d.qSym[i]]);
                r.putDouble(2, d.qBid[i]);
                r.putDouble(3, d.qAsk[i]);
                r.putLong(4, d.qBsize[i]);
                r.putLong(5, d.qAsize[i]);
                r.append();
            }
            w.commit();
        }
        for (final BenchQuery q : BenchQuery.values()) {
            factories.put(q, engine.select(sql(q, d), ctx));
        }
    }

    @Override
    public String name() {
        return "questdb";
    }

    static String sql(final BenchQuery q, final TickData d) {
        final String sym = "'" + d.oneSym + "'";
        switch (q) {
            case COUNT_BY_SYM:
                return "SELECT sym, count() n FROM trade ORDER BY sym";
            case VWAP_BY_SYM:
                return "SELECT sym, weighted_avg(price, size) vwap, count() n FROM trade ORDER BY sym"; // QuestDB's own
            case ONE_SYM:
                return "SELECT time, sym, price, size, cond FROM trade WHERE sym = " + sym;
            case BARS_1M:
                return "SELECT time, first(price) open, max(price) high, min(price) low, last(price) close, sum(size) volume"
                    + " FROM trade WHERE sym = " + sym + " SAMPLE BY 1m ALIGN TO CALENDAR";
            case ASOF:
                return "SELECT t.time, t.price, t.size, q.bid, q.ask FROM (trade WHERE sym = " + sym + ") t"
                    + " ASOF JOIN (quote WHERE sym = " + sym + ") q ON (sym)";
            case SPREAD_BY_SYM:
                return "SELECT sym, avg(ask - bid) spread FROM quote WHERE time BETWEEN '" + Instant.ofEpochSecond(0, d.windowFrom)
                    + "' AND '" + Instant.ofEpochSecond(0, d.windowTo) + "' ORDER BY sym";
            default:
                throw new IllegalArgumentException(q.name());
        }
    }

    @Override
    public long run(final BenchQuery q) throws Exception {
        final RecordCursorFactory f = factories.get(q);
        final RecordMetadata md = f.getMetadata();
        final int n = md.getColumnCount();
        long sum = 0;
        try (RecordCursor c = f.getCursor(ctx)) {
            final Record r = c.getRecord();
            while (c.hasNext()) {
                for (int i = 0; i < n; i++) {
                    switch (ColumnType.tagOf(md.getColumnType(i))) {
                        case ColumnType.DOUBLE:
                            sum += Double.doubleToRawLongBits(r.getDouble(i));
                            break;
                        case ColumnType.LONG:
                            sum += r.getLong(i);
                            break;
                        case ColumnType.TIMESTAMP:
                            sum += r.getTimestamp(i);
                            break;
                        case ColumnType.CHAR:
                            sum += r.getChar(i);
                            break;
                        case ColumnType.SYMBOL:
                            final CharSequence s = r.getSymA(i);
                            sum += s == null ? 1 : s.length();
                            break;
                        default:
                            throw new IllegalStateException("unexpected column type " + ColumnType.nameOf(md.getColumnType(i)));
                    }
                }
                sum += 31;
            }
        }
        return sum;
    }

    @Override
    public Answer answer(final BenchQuery q) throws Exception {
        final RecordCursorFactory f = factories.get(q);
        final RecordMetadata md = f.getMetadata();
        final int n = md.getColumnCount();
        final Answer a = new Answer();
        try (RecordCursor c = f.getCursor(ctx)) {
            final Record r = c.getRecord();
            while (c.hasNext()) {
                final Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    switch (ColumnType.tagOf(md.getColumnType(i))) {
                        case ColumnType.DOUBLE:
                            row[i] = r.getDouble(i);
                            break;
                        case ColumnType.LONG:
                            final long v = r.getLong(i);
                            row[i] = v == Long.MIN_VALUE ? null : v;
                            break;
                        case ColumnType.TIMESTAMP:
                            row[i] = r.getTimestamp(i);
                            break;
                        case ColumnType.CHAR:
                            row[i] = String.valueOf(r.getChar(i));
                            break;
                        case ColumnType.SYMBOL:
                            final CharSequence s = r.getSymA(i);
                            row[i] = s == null ? null : s.toString();
                            break;
                        default:
                            throw new IllegalStateException("unexpected column type " + ColumnType.nameOf(md.getColumnType(i)));
                    }
                }
                a.add(row);
            }
        }
        return a;
    }

    /**
     * Starts QuestDB's own PostgreSQL wire server over this engine, embedded in this JVM as its
     * {@code ServerMain} would (its {@code PGServer} on its own worker pool of one thread per core,
     * user {@code admin}, password {@code quest}), on a free loopback port; returns the port.
     */
    public int startPgWire() throws java.io.IOException {
        final int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        final int workers = Runtime.getRuntime().availableProcessors();
        final DefaultPGConfiguration conf = new DefaultPGConfiguration() {
            @Override
            public int getBindPort() {
                return port;
            }

            @Override
            public int getBindIPv4Address() {
                return 0x7F000001;
            }

            @Override
            public int getWorkerCount() {
                return workers;
            }
        };
        pgPool = new WorkerPool(() -> workers);
        pgServer = new PGServer(conf, engine, pgPool, new DefaultPGCircuitBreakerRegistry(conf, engine.getConfiguration()),
            () -> new SqlExecutionContextImpl(engine, workers));
        pgPool.start();
        return port;
    }

    @Override
    public void close() throws Exception {
        if (pgServer != null) {
            pgPool.halt();
            pgServer.close();
        }
        for (final RecordCursorFactory f : factories.values()) {
            f.close();
        }
        pool.halt();
        ctx.close();
        engine.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
