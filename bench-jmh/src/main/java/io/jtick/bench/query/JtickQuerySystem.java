package io.jtick.bench.query;

import io.jtick.bench.BenchDirs;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.PreparedQuery;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ChecksumSink;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.QuerySource;
import io.jtick.core.warmup.QueryWarmUp;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * jtick: the data fed into a real {@link RealtimeDatabase} through update frames of 10,000 rows
 * (the RDB's own insert path); or, {@code parted}, held in sym-parted in-memory segments (an HDB
 * partition's layout without its files); or, {@code hdb}/{@code hdb-lz4}, that RDB's tables
 * written by {@link PartitionWriter} as a real date partition (plain and memory-mapped: the hot
 * tier; or {@code auto/lz4}: the warm tier) under a temporary directory and read through
 * {@link HistoricalDatabase} and {@link PartitionSource}; or, {@code hdb-parquet}, that partition moved to a
 * {@code parquet/zstd} tier. Questions are JSON documents prepared
 * once, like the peers' prepared statements; each run streams the rows into a sink that reads
 * every value.
 */
public final class JtickQuerySystem implements QuerySystem {
    private static final int FRAME_ROWS = 10_000;
    /** One warm-up per kind, as each service runs its own: rdb-service the RDB's, hdb-service the HDB's. */
    private static final Map<QueryWarmUp.Kind, QueryWarmUp> WARM_UPS = new EnumMap<>(QueryWarmUp.Kind.class);
    /** As rdb-service's {@code rdb-sym-index}: one thread per process sorts (and counts) each chunk the load fills. */
    private static final io.jtick.core.rdb.SymIndexAgent INDEX_AGENT = new io.jtick.core.rdb.SymIndexAgent("bench-rdb-sym-index");

    /** Where the data lives: the system names the benchmark knows. */
    public enum Layout {
        RDB("jtick"), PARTED("jtick-parted"), HDB("jtick-hdb"), HDB_LZ4("jtick-hdb-lz4"), HDB_PARQUET("jtick-hdb-parquet");

        final String systemName;

        Layout(final String systemName) {
            this.systemName = systemName;
        }
    }

    private final Layout layout;
    private final QuerySource source;
    /** {@code -Djtick.bench.parallelism=1} keeps every query on the calling thread (CPU-time comparisons on a busy machine). */
    private final QueryEngine engine = new QueryEngine(new TickMetrics(), io.jtick.core.query.model.QueryLimits.DEFAULT,
        Integer.getInteger("jtick.bench.parallelism", Runtime.getRuntime().availableProcessors()));
    private final Map<BenchQuery, PreparedQuery> prepared = new EnumMap<>(BenchQuery.class);
    private Path root;
    private HistoricalDatabase hdb;

    public JtickQuerySystem(final TickData d, final Layout layout) throws IOException {
        this.layout = layout;
        final QueryWarmUp w = warmUpOnce(layout);
        final int day = (int) Math.floorDiv(d.tTime.length > 0 ? d.tTime[0] : 0, 86_400_000_000_000L);
        switch (layout) {
            case RDB:
                this.source = rdb(d, day);
                break;
            case PARTED:
                this.source = partedSource(d, day);
                break;
            default:
                this.source = hdbSource(d, day, layout == Layout.HDB_LZ4 ? ColumnEncoding.parse("auto/lz4") : ColumnEncoding.PLAIN);
                if (layout == Layout.HDB_PARQUET) {
                    toParquet(LocalDate.ofEpochDay(day));
                }
                break;
        }
        for (final BenchQuery q : BenchQuery.values()) {
            prepared.put(q, engine.prepare(json(q, d), source));
        }
        awaitWarmUp(w);
    }

    /**
     * As rdb-service and hdb-service do as they start ({@code tick.query.warm-up}, on by default):
     * the engine's warm-up over tables of this layout's kind (the RDB's, or HDB partitions in the
     * service's default encodings), started once per kind and JVM before the data loads, on its own
     * thread, so that each system starts as its service would even when the RDB and the HDBs share
     * one JVM (QueryCheck); {@code -Djtick.bench.warm-up=false} turns it off. The first query waits
     * for it (a user who asks once the service is up): the time it took beyond the load is printed
     * as {@code warm-up ms} (start-up cost) and {@code wait ms}.
     */
    private static synchronized QueryWarmUp warmUpOnce(final Layout layout) {
        final QueryWarmUp.Kind kind = layout == Layout.RDB || layout == Layout.PARTED ? QueryWarmUp.Kind.RDB : QueryWarmUp.Kind.HDB;
        return WARM_UPS.computeIfAbsent(kind, k -> Boolean.parseBoolean(System.getProperty("jtick.bench.warm-up", "true"))
            ? QueryWarmUp.start(k, QueryWarmUp.DEFAULT_BUDGET, QueryWarmUp.defaultRounds(k), true,
                List.of(ColumnEncoding.PLAIN, ColumnEncoding.parse("auto/lz4")), Runtime.getRuntime().availableProcessors(), false)
            : QueryWarmUp.off());
    }

    private static void awaitWarmUp(final QueryWarmUp w) {
        final long t0 = System.nanoTime();
        try {
            if (!w.await(QueryWarmUp.DEFAULT_BUDGET.multipliedBy(3))) {
                throw new IllegalStateException("query warm-up still running after " + QueryWarmUp.DEFAULT_BUDGET.multipliedBy(3));
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        System.out.println(String.format(java.util.Locale.ROOT, "warm-up ms %.1f, wait ms %.1f, rounds %d, settled %b",
            w.nanos() / 1e6, (System.nanoTime() - t0) / 1e6, w.rounds(), w.settled()));
    }

    @Override
    public String name() {
        return layout.systemName;
    }

    /** Where the data is, for another front end over the same engine (SqlWireCheck). */
    QuerySource source() {
        return source;
    }

    /** The HDB's root directory, null for the in-memory layouts. */
    Path root() {
        return root;
    }

    QueryEngine engine() {
        return engine;
    }

    /** The question as a jtick query document. */
    static String json(final BenchQuery q, final TickData d) {
        switch (q) {
            case COUNT_BY_SYM:
                return "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}";
            case VWAP_BY_SYM:
                return "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},"
                    + "\"by\":\"sym\"}";
            case ONE_SYM:
                return "{\"table\":\"trade\",\"where\":{\"sym\":\"" + d.oneSym + "\"},"
                    + "\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}";
            case BARS_1M:
                return "{\"table\":\"trade\",\"where\":{\"sym\":\"" + d.oneSym + "\"},"
                    + "\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},"
                    + "\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                    + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}";
            case ASOF:
                return "{\"table\":\"trade\",\"where\":{\"sym\":\"" + d.oneSym + "\"},"
                    + "\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
                    + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}";
            case SPREAD_BY_SYM:
                return "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + d.windowFrom + "," + d.windowTo + "]}},"
                    + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}";
            default:
                throw new IllegalArgumentException(q.name());
        }
    }

    @Override
    public long run(final BenchQuery q) {
        final ChecksumSink sink = new ChecksumSink();
        engine.execute(prepared.get(q), source, sink);
        return sink.sum();
    }

    @Override
    public Answer answer(final BenchQuery q) {
        final ResultTable t = new ResultTable();
        engine.execute(prepared.get(q), source, t);
        final Answer a = new Answer();
        final List<ValueType> types = t.types();
        for (int r = 0; r < t.rowCount(); r++) {
            final Object[] row = new Object[types.size()];
            for (int c = 0; c < row.length; c++) {
                if (t.isNull(r, c)) {
                    row[c] = null;
                } else if (types.get(c) == ValueType.TIMESTAMP) {
                    row[c] = t.getLong(r, c) / 1000;
                } else if (types.get(c) == ValueType.CHAR) {
                    row[c] = String.valueOf((char) t.getLong(r, c));
                } else {
                    row[c] = t.get(r, c);
                }
            }
            a.add(row);
        }
        return a;
    }

    /** Closes the HDB (unmapping its files) and deletes its directory; nothing to do for the in-memory layouts. */
    @Override
    public void close() throws IOException {
        if (hdb != null) {
            hdb.close();
            hdb = null;
        }
        if (root != null) {
            PartitionStore.deleteRecursively(root);
            root = null;
        }
    }

    // ---- loading ------------------------------------------------------------------------------

    private static RealtimeDatabase rdb(final TickData d, final int day) {
        final RealtimeDatabase rdb = new RealtimeDatabase(new TickMetrics(), io.jtick.core.rdb.EndOfDayHandler.NONE, List.of(),
            Math.max(1024, Integer.highestOneBit(Math.max(d.trades, d.quotes)) << 1), Set.of(), Long.MAX_VALUE, INDEX_AGENT);
        final Map<String, TableSchema> schemas = new LinkedHashMap<>();
        schemas.put("trade", TableSchema.trade(0));
        schemas.put("quote", TableSchema.quote(0));
        rdb.onSubscribed(new ControlFrames.Subscribed(0, 0, day, schemas));
        final byte[][] names = new byte[d.syms.length][];
        for (int i = 0; i < names.length; i++) {
            names[i] = d.syms[i].getBytes(StandardCharsets.US_ASCII);
        }
        final ByteBuf buf = Unpooled.directBuffer(1 << 20);
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateDecoder dec = new UpdateDecoder();
        final int[] code = new int[names.length];
        final int[] stamp = new int[names.length];
        long seq = 0;
        int frame = 0;
        try {
            for (int from = 0; from < d.trades; from += FRAME_ROWS) {
                final int n = Math.min(FRAME_ROWS, d.trades - from);
                buf.clear();
                enc.wrap(buf, schemas.get("trade"), n, Math.min(n, names.length) * 8);
                enc.sequence(++seq);
                frame++;
                for (int r = 0; r < n; r++) {
                    final int i = from + r;
                    final int s = d.tSym[i];
                    if (stamp[s] != frame) {
                        stamp[s] = frame;
                        code[s] = enc.addSym(names[s]);
                    }
                    enc.timestamp(0, r, d.tTime[i]).sym(r, code[s]).float64(2, r, d.tPrice[i]).int64(3, r, d.tSize[i])
                        .int8(4, r, d.tCond[i]);
                }
                enc.finish();
                rdb.onUpdate(schemas.get("trade"), dec.wrap(buf, 0), 0);
            }
            for (int from = 0; from < d.quotes; from += FRAME_ROWS) {
                final int n = Math.min(FRAME_ROWS, d.quotes - from);
                buf.clear();
                enc.wrap(buf, schemas.get("quote"), n, Math.min(n, names.length) * 8);
                enc.sequence(++seq);
                frame++;
                for (int r = 0; r < n; r++) {
                    final int i = from + r;
                    final int s = d.qSym[i];
                    if (stamp[s] != frame) {
                        stamp[s] = frame;
                        code[s] = enc.addSym(names[s]);
                    }
                    enc.timestamp(0, r, d.qTime[i]).sym(r, code[s]).float64(2, r, d.qBid[i]).float64(3, r, d.qAsk[i])
                        .int64(4, r, d.qBsize[i]).int64(5, r, d.qAsize[i]);
                }
                enc.finish();
                rdb.onUpdate(schemas.get("quote"), dec.wrap(buf, 0), 0);
            }
        } finally {
            buf.release();
        }
        rdb.onCatchUpDone(seq); // the load is the RDB's catch-up replay of the day's journal
        if (rdb.rowCount("trade") != d.trades || rdb.rowCount("quote") != d.quotes) {
            throw new IllegalStateException("RDB load incomplete [trade=" + rdb.rowCount("trade") + ", quote=" + rdb.rowCount("quote")
                + ", status=" + rdb.status() + "]");
        }
        return rdb;
    }

    private static QuerySource partedSource(final TickData d, final int day) {
        final MemorySegment.Builder t = MemorySegment.builder(TableSchema.trade(0), day);
        for (int i = 0; i < d.trades; i++) {
            t.value(d.tTime[i]).symbol(d.syms[d.tSym[i]]).value(d.tPrice[i]).value(d.tSize[i]).value(d.tCond[i]).endRow();
        }
        final MemorySegment.Builder q = MemorySegment.builder(TableSchema.quote(0), day);
        for (int i = 0; i < d.quotes; i++) {
            q.value(d.qTime[i]).symbol(d.syms[d.qSym[i]]).value(d.qBid[i]).value(d.qAsk[i]).value(d.qBsize[i]).value(d.qAsize[i])
                .endRow();
        }
        return new MemorySource().add(t.buildParted()).add(q.buildParted());
    }

    /**
     * The RDB's trade and quote tables written as one date partition (sorted by sym, then time;
     * {@code p#}) under a temporary directory in {@code jtick.bench.dir} (default {@code var}), then
     * opened as an HDB. The RDB is dropped once written.
     */
    private QuerySource hdbSource(final TickData d, final int day, final ColumnEncoding encoding) throws IOException {
        root = BenchDirs.temp("bench-query-hdb");
        try {
            final RealtimeDatabase rdb = rdb(d, day);
            final EncodingPolicy policy = encoding.isPlain() ? EncodingPolicy.PLAIN : EncodingPolicy.uniform(encoding);
            new PartitionWriter(root, policy).write(LocalDate.ofEpochDay(day), List.of(rdb.table("trade"), rdb.table("quote")));
            hdb = new HistoricalDatabase(root, new TickMetrics());
            hdb.preloadDays(1);
            hdb.reload();
            awaitPreload(hdb);
            return new PartitionSource(hdb);
        } catch (final IOException | RuntimeException e) {
            try {
                close();
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** As hdb-service preloads the newest day after a reload ({@code tick.hdb.preload-days}); the first query waits for it. */
    private static void awaitPreload(final HistoricalDatabase hdb) {
        try {
            if (!hdb.awaitPreload(java.time.Duration.ofMinutes(1))) {
                throw new IllegalStateException("HDB preload still running after a minute");
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The written partition moved to a {@code parquet/zstd} tier by the tiering job, as the HDB's own job would. */
    private void toParquet(final LocalDate date) {
        final TieringJob.Report r = new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("parquet", -1, "parquet/zstd",
            Map.of(), Map.of()))), PartitionWriter.DEFAULT_BLOCK_BYTES).run(date);
        if (!r.failed().isEmpty()) {
            throw new IllegalStateException("parquet tier failed: " + r.failed());
        }
    }

    static String date(final long nanos) {
        return LocalDate.ofEpochDay(Math.floorDiv(nanos, 86_400_000_000_000L)).toString();
    }
}
