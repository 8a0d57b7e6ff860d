package io.jtick.bench;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.MemorySegment;
import io.jtick.objectstore.ObjectStoreSettings;
import io.jtick.objectstore.S3ColdStore;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.shaded.org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The cold tier against the disk ({@code ./jtick bench-cold [rows] [syms]}, default 10M trades + 10M
 * quotes over 1000 syms): one synthetic day moved to an S3-compatible server on loopback (s3proxy in
 * this JVM, filesystem backend) by the tiering job, and the same day as a local Parquet partition
 * ({@code parquet/zstd}) and a local plain one. From a fresh HDB sharing the bucket: the first query of
 * one sym's day (empty cache: manifests and footers at reload, then ranged GETs; the engine already run
 * once on the local copies, as in a running HDB), with the bytes it
 * downloaded against the object's size; then warm (cached) one-sym, VWAP by sym and spread by sym in
 * an hour, each the median of interleaved rounds (store, local Parquet, local plain in turn, so a
 * loaded machine weighs on all three alike). Every answer from the store is checked against the disk's.
 */
public final class ColdTierBench {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final String ACCESS = "bench-access";
    private static final String SECRET = "bench-secret-key";
    private static final String BUCKET = "jtick-cold";
    private static final int ROUNDS = 15;

    private ColdTierBench() {
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        final int syms = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final Path base = BenchDirs.temp("bench-cold");
        final List<MemorySegment> day = List.of(SyntheticDay.segment("trade", DAY, rows, syms, 1),
            SyntheticDay.segment("quote", DAY, rows, syms, 2));
        final String sym = String.format("S%04d", syms / 2);
        final long open = SyntheticDay.open(DAY, SyntheticDay.NEW_YORK);
        final Map<String, String> questions = new java.util.LinkedHashMap<>();
        questions.put("one sym", "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":[\"time\",\"price\",\"size\"]}");
        questions.put("vwap by sym", "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},"
            + "\"by\":\"sym\"}");
        questions.put("spread 1h", "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + (open + 3_600_000_000_000L) + ","
            + (open + 7_200_000_000_000L) + "]}},\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}");
        final Properties p = new Properties();
        p.setProperty("jclouds.filesystem.basedir", Files.createDirectories(base.resolve("bucket")).toString());
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        try (BlobStoreContext blobs = ContextBuilder.newBuilder("filesystem").credentials("i", "c").overrides(p)
            .build(BlobStoreContext.class)) {
            blobs.getBlobStore().createContainerInLocation(null, BUCKET);
            final S3Proxy s3 = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
            s3.start();
            while (!AbstractLifeCycle.STARTED.equals(s3.getState())) {
                Thread.onSpinWait();
            }
            final ObjectStoreSettings settings = ObjectStoreSettings.of(URI.create("http://127.0.0.1:" + s3.getPort()), BUCKET, "bench",
                ACCESS, SECRET).withTimeouts(Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofMinutes(10), 3);
            try (HistoricalDatabase plain = open(base.resolve("plain"), day, null, null);
                 HistoricalDatabase parquet = open(base.resolve("parquet"), day, null, TierPolicy.Tier.parse("lake", -1, "parquet/zstd",
                     Map.of(), Map.of()));
                 S3ColdStore mover = new S3ColdStore(settings, new TickMetrics());
                 HistoricalDatabase moved = open(base.resolve("moved"), day, mover, TierPolicy.Tier.objectStore("cold", -1,
                     "parquet/zstd"))) {
                final TickMetrics metrics = new TickMetrics();
                try (S3ColdStore store = new S3ColdStore(settings, metrics);
                     HistoricalDatabase cold = new HistoricalDatabase(base.resolve("replica"), new TickMetrics())) {
                    cold.coldStore(store);
                    final long r0 = System.nanoTime();
                    cold.reload();
                    final long r1 = System.nanoTime();
                    final long footers = metrics.counters().get("tick.hdb.cold.fetched.bytes").get();
                    final String oneSym = questions.get("one sym");
                    // a running HDB has answered queries before: the engine and the Parquet reader are compiled, the store's cache empty
                    final List<List<Object>> want = answer(engine, plain, oneSym);
                    check(answer(engine, parquet, oneSym).equals(want), "the local Parquet answer differs from the plain one");
                    final long f0 = System.nanoTime();
                    final List<List<Object>> first = answer(engine, cold, oneSym);
                    final long f1 = System.nanoTime();
                    check(first.equals(want), "the store's first answer differs from the disk's");
                    final long fetched = metrics.counters().get("tick.hdb.cold.fetched.bytes").get() - footers;
                    final long gets = metrics.counters().get("tick.hdb.cold.gets").get();
                    final long object = cold.partitions().get(0).tables().stream().filter(t -> t.table().equals("trade")).findFirst()
                        .orElseThrow().bytesOnDisk();
                    System.out.printf("%n cold tier: %,d trades + %,d quotes, %d syms; s3proxy on loopback; load %s%n", rows, rows, syms,
                        loadAverage());
                    System.out.printf(" reload (list manifests, read footers): %.1f ms, %,d bytes%n", (r1 - r0) / 1e6, footers);
                    System.out.printf(" first query of one sym's day (%s, %,d rows) from the store: %.1f ms; %,d GETs in all;"
                        + " %,d bytes downloaded of a %,d-byte object (%.2f%%)%n", sym, want.size(), (f1 - f0) / 1e6, gets, fetched, object,
                        100.0 * fetched / object);
                    System.out.printf("%n %-12s %12s %12s %12s %9s %9s%n", "warm, ms", "store", "local pq", "local plain", "store/pq",
                        "pq/plain");
                    for (final Map.Entry<String, String> q : questions.entrySet()) {
                        check(answer(engine, cold, q.getValue()).equals(answer(engine, plain, q.getValue())), q.getKey() + " differs");
                        final double[][] t = interleaved(engine, q.getValue(), cold, parquet, plain);
                        final double c = median(t[0]);
                        final double pq = median(t[1]);
                        final double pl = median(t[2]);
                        System.out.printf(" %-12s %12.3f %12.3f %12.3f %8.2fx %8.2fx   (store %s)%n", q.getKey(), c, pq, pl, c / pq,
                            pq / pl, spread(t[0]));
                    }
                    System.out.printf("%n cache: %,d hits, %,d misses, %,d bytes held; load %s%n",
                        metrics.counters().get("tick.hdb.cold.cache.hits").get(),
                        metrics.counters().get("tick.hdb.cold.cache.misses").get(),
                        metrics.gauges().get("tick.hdb.cold.cache.bytes").getAsLong(), loadAverage());
                }
            } finally {
                s3.stop();
            }
        } finally {
            PartitionStore.deleteRecursively(base);
        }
    }

    private static HistoricalDatabase open(final Path root, final List<MemorySegment> day, final S3ColdStore store,
                                           final TierPolicy.Tier tier) throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, day);
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        hdb.coldStore(store);
        hdb.reload();
        if (tier != null) {
            final TieringJob.Report r = new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(),
                Map.of()), tier)), PartitionWriter.DEFAULT_BLOCK_BYTES).run(DAY.plusDays(3));
            check(r.failed().isEmpty() && r.moved().size() == 2, "tiering failed: " + r.failed());
        }
        return hdb;
    }

    static List<List<Object>> answer(final QueryEngine engine, final HistoricalDatabase hdb, final String json) {
        final PartitionSource source = new PartitionSource(hdb);
        final ResultTable t = new ResultTable();
        engine.execute(engine.prepare(json, source), source, t);
        return t.rows();
    }

    /** Times of each system in turn, ROUNDS rounds after 3 unmeasured. */
    private static double[][] interleaved(final QueryEngine engine, final String q, final HistoricalDatabase... systems) {
        final double[][] t = new double[systems.length][ROUNDS];
        for (int round = -3; round < ROUNDS; round++) {
            for (int s = 0; s < systems.length; s++) {
                final long t0 = System.nanoTime();
                answer(engine, systems[s], q);
                if (round >= 0) {
                    t[s][round] = (System.nanoTime() - t0) / 1e6;
                }
            }
        }
        return t;
    }

    private static double median(final double[] t) {
        final double[] s = t.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static String spread(final double[] t) {
        final double[] s = t.clone();
        Arrays.sort(s);
        return String.format("min %.3f, max %.3f", s[0], s[s.length - 1]);
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private static String loadAverage() {
        try {
            return String.join(" ", Arrays.copyOf(Files.readString(Path.of("/proc/loadavg")).split(" "), 3));
        } catch (final java.io.IOException e) {
            return "?";
        }
    }
}
