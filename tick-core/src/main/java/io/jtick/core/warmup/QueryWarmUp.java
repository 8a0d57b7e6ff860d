package io.jtick.core.warmup;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.PreparedQuery;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ChecksumSink;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The query engine's start-up warm-up: on a background thread, the shapes of query a user asks
 * first (count and VWAP by sym, one sym's rows, one-minute bars, an as-of join, a time window by
 * sym, a filtered aggregate of every kind) run over a generated day ({@link WarmUpDay}, a little
 * over a quarter of a million rows per table, so that the grouped scans take the same split path
 * as a large day) held in tables of the service's own kind: the RDB's in-memory tables
 * ({@link Kind#RDB}), or that day written as HDB partitions in each encoding the HDB serves and
 * read back through the HDB's mapped files ({@link Kind#HDB}; encoded partitions are opened afresh
 * each round, so their blocks decode every round as for a user's first query, instead of once and then
 * coming from the decoded-block cache). The JIT then compiles the kernels
 * against the same segment and column classes a user's query meets, so a user's first query runs
 * compiled code without the warm-up's profile steering the compiler to other classes (a warm-up
 * over other table kinds slowed later queries: bench-jmh README, "First queries").
 *
 * <p>It runs {@code maxRounds} rounds; then, when asked to {@code settle}, further rounds until one
 * round and a short pause after it leave the JIT nothing to compile (the JVM's total compilation
 * time did not move), so that a user's first query neither waits behind the warm-up's queued C2
 * compilations nor shares the CPU with them. It stops early when {@code budget} is spent (a round in
 * progress is finished), then drops its tables and deletes its partitions. It never fails the
 * process: an error is logged and reported by {@link #failure}. The time it took, the start-up cost
 * a service pays, is {@link #nanos}; queries that arrive meanwhile run, sharing the CPU with it.
 *
 * <p>With {@code returnHeap} (the services) it then runs one full collection ({@link HeapReturn}), so
 * that the heap the warm-up's tables and results took goes back to the OS at once (the services run
 * with a low {@code -XX:MaxHeapFreeRatio}): an idle service holds no more after its warm-up than
 * before it. Without it the warm-up's garbage, promoted to the old generation, stayed committed until
 * enough other allocation brought mixed collections; an idle HDB kept ~45 MB more for good
 * (docs/operations.md "Memory"). The collection's pause is logged with the heap before and after.
 */
public final class QueryWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(QueryWarmUp.class);
    /** Rows per table: above the engine's threshold for splitting a grouped scan over threads. */
    static final int ROWS = 300_000;
    static final int SYMS = 500;
    /** HDB rounds before the warm-up watches the JIT settle: enough to make C2 compile every shape. */
    static final int HDB_ROUNDS = 12;
    /**
     * RDB rounds before it watches: a round there takes a few milliseconds once compiled, and the
     * methods called once per batch (ten or twenty batches per query of the warm-up's day, hundreds
     * per query of a 10M-row day) need thousands of calls before C2 compiles them: after 12 rounds C2
     * still compiled some during a user's first queries, on one of the two cores the query ran on.
     */
    static final int RDB_ROUNDS = 150;
    /** Pause after a round in which the JIT's queue may drain before the warm-up checks it compiled nothing. */
    static final Duration SETTLE_PAUSE = Duration.ofMillis(100);
    /** Time allowed when no other limit is given. */
    public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(20);

    /** Rounds before the warm-up of {@code kind} watches the JIT settle ({@link #start}'s {@code maxRounds}). */
    public static int defaultRounds(final Kind kind) {
        return kind == Kind.RDB ? RDB_ROUNDS : HDB_ROUNDS;
    }

    /** Which tables the warm-up queries: those of an RDB, or an HDB's partitions. */
    public enum Kind { RDB, HDB }

    private final Kind kind;
    private final Duration budget;
    private final int maxRounds;
    private final boolean settle;
    private final List<ColumnEncoding> encodings;
    private final int parallelism;
    private final boolean returnHeap;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile long nanos;
    private volatile int rounds;
    private volatile boolean settled;
    private volatile Throwable failure;

    private QueryWarmUp(final Kind kind, final Duration budget, final int maxRounds, final boolean settle,
                        final List<ColumnEncoding> encodings, final int parallelism, final boolean returnHeap) {
        if (budget.isNegative() || maxRounds < 0 || parallelism < 1 || kind == Kind.HDB && encodings.isEmpty()) {
            throw new IllegalArgumentException("bad warm-up settings [kind=" + kind + ", budget=" + budget + ", rounds=" + maxRounds
                + ", encodings=" + encodings + ", parallelism=" + parallelism + "]");
        }
        this.kind = kind;
        this.budget = budget;
        this.maxRounds = maxRounds;
        this.settle = settle;
        this.encodings = List.copyOf(encodings);
        this.parallelism = parallelism;
        this.returnHeap = returnHeap;
    }

    /**
     * Starts a warm-up on its own daemon thread.
     *
     * @param maxRounds rounds of every shape; with {@code settle}, the rounds before it watches the JIT
     * @param settle after those rounds, go on until a round leaves the JIT nothing to compile (or the budget is spent)
     * @param encodings for {@link Kind#HDB}, the encodings whose partitions it reads (plain, {@code auto/lz4} ...); ignored for the RDB
     * @param parallelism the service engine's threads per query, so the same split path runs
     * @param returnHeap when done, run a full collection so that the heap the warm-up took goes back to the OS
     */
    public static QueryWarmUp start(final Kind kind, final Duration budget, final int maxRounds, final boolean settle,
                                    final List<ColumnEncoding> encodings, final int parallelism, final boolean returnHeap) {
        final QueryWarmUp w = new QueryWarmUp(kind, budget, maxRounds, settle, encodings, parallelism, returnHeap);
        final Thread t = new Thread(w::run, "jtick-query-warm-up");
        t.setDaemon(true);
        t.start();
        return w;
    }

    /** A warm-up turned off: already done, nothing run. */
    public static QueryWarmUp off() {
        final QueryWarmUp w = new QueryWarmUp(Kind.RDB, Duration.ZERO, 0, false, List.of(), 1, false);
        w.done.countDown();
        return w;
    }

    /** Waits until it is done or {@code timeout} passed; true when done. */
    public boolean await(final Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public boolean isDone() {
        return done.getCount() == 0;
    }

    /** Nanoseconds from start to done (tables built, rounds run, files deleted); 0 until done. */
    public long nanos() {
        return nanos;
    }

    /** Rounds of every shape run so far. */
    public int rounds() {
        return rounds;
    }

    /** True when it stopped because a round left the JIT nothing to compile (asked to settle, within its budget). */
    public boolean settled() {
        return settled;
    }

    /** What stopped it early, or null. */
    public Throwable failure() {
        return failure;
    }

    private void run() {
        final long start = System.nanoTime();
        Path dir = null;
        final List<Path> roots = new ArrayList<>();
        final List<HistoricalDatabase> hdbs = new ArrayList<>();
        try {
            final List<RealtimeTable> tables = WarmUpDay.tables(ROWS, SYMS);
            final List<QuerySource> sources = new ArrayList<>();
            if (kind == Kind.RDB) {
                sources.add(rdbSource(tables));
            } else {
                dir = Files.createTempDirectory("jtick-warm-up");
                final List<TableSegment> segments = new ArrayList<>();
                for (final RealtimeTable t : tables) {
                    segments.add(t.segment(WarmUpDay.EPOCH_DAY));
                }
                for (final ColumnEncoding e : encodings) {
                    final Path root = Files.createDirectory(dir.resolve("hdb-" + roots.size()));
                    new PartitionWriter(root, e.isPlain() ? EncodingPolicy.PLAIN : EncodingPolicy.uniform(e))
                        .write(LocalDate.ofEpochDay(WarmUpDay.EPOCH_DAY), segments);
                    roots.add(root);
                }
                for (final Path root : roots) {
                    hdbs.add(null);
                    sources.add(open(root, hdbs, hdbs.size() - 1, false));
                }
            }
            final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, parallelism);
            final String[] queries = queries();
            final List<PreparedQuery[]> prepared = new ArrayList<>();
            for (final QuerySource s : sources) {
                prepared.add(prepare(engine, queries, s));
            }
            final long deadline = start + budget.toNanos();
            final ChecksumSink sink = new ChecksumSink();
            final CompilationMXBean jit = settle ? ManagementFactory.getCompilationMXBean() : null;
            final boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
            while (System.nanoTime() - deadline < 0 && (rounds < maxRounds || watch)) {
                final long compiled = watch ? jit.getTotalCompilationTime() : 0;
                for (int i = 0; i < roots.size() && rounds > 0; i++) {
                    if (!encodings.get(i).isPlain()) {
                        // encoded partitions opened afresh: their blocks decode again, as for a user's first query,
                        // instead of coming from the decoded-block cache the first round filled (the decoders would
                        // stay uncompiled); every other round preloaded as hdb-service preloads its newest day, so the
                        // queries also read blocks the preload put in the cache, as a user's first query does then
                        sources.set(i, open(roots.get(i), hdbs, i, rounds % 2 == 1));
                        prepared.set(i, prepare(engine, queries, sources.get(i)));
                    }
                }
                for (int s = 0; s < sources.size(); s++) {
                    for (final PreparedQuery p : prepared.get(s)) {
                        engine.execute(p, sources.get(s), sink);
                    }
                }
                rounds++;
                if (watch && rounds >= maxRounds) {
                    Thread.sleep(SETTLE_PAUSE.toMillis());
                    if (jit.getTotalCompilationTime() == compiled) {
                        settled = true;
                        break;
                    }
                }
            }
        } catch (final InterruptedException e) {
            failure = e;
            Thread.currentThread().interrupt();
        } catch (final IOException | RuntimeException | LinkageError e) {
            failure = e;
            LOG.warn("query warm-up stopped early, first queries will compile as they run [kind={}, rounds={}]", kind, rounds, e);
        } finally {
            for (final HistoricalDatabase h : hdbs) {
                if (h != null) {
                    h.close();
                }
            }
            if (dir != null) {
                try {
                    PartitionStore.deleteRecursively(dir);
                } catch (final IOException e) {
                    LOG.warn("query warm-up could not delete its partitions [dir={}]", dir, e);
                }
            }
            nanos = System.nanoTime() - start;
            LOG.info("query warm-up done [kind={}, rounds={}, ms={}, settled={}]", kind, rounds, nanos / 1_000_000, settled);
            if (returnHeap) {
                HeapReturn.afterJob("the " + kind + " query warm-up", LOG);
            }
            done.countDown();
        }
    }

    /**
     * Opens a root's partitions as a new HDB in {@code hdbs[i]}, closing the one there (its decoded blocks leave the cache);
     * {@code preload}: read ahead as hdb-service's newest day is ({@link HistoricalDatabase#preloadDays}), waited for.
     */
    private static QuerySource open(final Path root, final List<HistoricalDatabase> hdbs, final int i, final boolean preload)
        throws IOException, InterruptedException {
        if (hdbs.get(i) != null) {
            hdbs.get(i).close();
            hdbs.set(i, null);
        }
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        hdbs.set(i, hdb);
        hdb.preloadDays(preload ? 1 : 0);
        hdb.reload();
        hdb.awaitPreload(Duration.ofSeconds(10));
        return new PartitionSource(hdb);
    }

    private static PreparedQuery[] prepare(final QueryEngine engine, final String[] queries, final QuerySource source) {
        final PreparedQuery[] p = new PreparedQuery[queries.length];
        for (int q = 0; q < queries.length; q++) {
            p[q] = engine.prepare(queries[q], source);
        }
        return p;
    }

    /** The generated day's tables as the RDB serves them: one fresh segment per table and query. */
    private static QuerySource rdbSource(final List<RealtimeTable> tables) {
        return new QuerySource() {
            @Override
            public TableSchema schema(final String table) {
                for (final RealtimeTable t : tables) {
                    if (t.name().equals(table)) {
                        return t.schema();
                    }
                }
                return null;
            }

            @Override
            public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
                for (final RealtimeTable t : tables) {
                    if (t.name().equals(table) && fromDay <= WarmUpDay.EPOCH_DAY && WarmUpDay.EPOCH_DAY <= toDay) {
                        return List.of(t.segment(WarmUpDay.EPOCH_DAY));
                    }
                }
                return List.of();
            }
        };
    }

    /** The shapes: the questions QueryCheck times, then a filter with every aggregate. */
    static String[] queries() {
        final String one = WarmUpDay.sym(WarmUpDay.ONE);
        return new String[] {
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + one + "\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + one + "\"},"
                + "\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},"
                + "\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            // a thin sym's bars too: runs of a row or a few (the busy sym's are runs of many), so both paths of the
            // grouped kernels are compiled
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + WarmUpDay.sym(WarmUpDay.ONE + 1) + "\"},"
                + "\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},"
                + "\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + one + "\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
                + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}",
            "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"10:00\",\"11:00\"]}},"
                + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"where\":{\"price\":{\">\":105}},\"select\":{\"s\":{\"sum\":\"size\"},\"hi\":{\"max\":\"price\"},"
                + "\"lo\":{\"min\":\"size\"},\"f\":{\"first\":\"time\"},\"m\":{\"median\":\"price\"},"
                + "\"d\":{\"dev\":\"price\"}},\"by\":\"sym\"}",
        };
    }
}
