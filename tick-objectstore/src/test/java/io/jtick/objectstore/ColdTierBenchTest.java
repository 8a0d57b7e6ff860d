package io.jtick.objectstore;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.table.MemorySegment;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cold tier's figures, printed, not asserted (a timing never decides a test): one synthetic day
 * ({@code -Djtick.bench.rows}, default 1M trades, 1000 syms) moved to s3proxy on loopback, then from a
 * fresh HDB sharing the bucket the first query of one sym's day (empty cache: footer + ranged GETs) and
 * the same query warm (cached), beside the same day as a local Parquet partition and as a local plain
 * one, in the same run. Run: {@code ./mvnw -o -q -pl tick-objectstore -am test -Pslow -Dgroups=slow
 * -Dtest=ColdTierBenchTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("slow")
class ColdTierBenchTest {
    private static final LocalDate D1 = LocalDate.of(2026, 3, 2);

    @TempDir
    Path bucketDir;
    @TempDir
    Path plainRoot;
    @TempDir
    Path parquetRoot;
    @TempDir
    Path coldRoot;
    @TempDir
    Path replicaRoot;

    @Test
    void shouldPrintFirstAndWarmQueryTimesFromTheStoreBesideTheDisk() throws Exception {
        final int rows = Integer.getInteger("jtick.bench.rows", 1_000_000);
        final int syms = Integer.getInteger("jtick.bench.syms", 1000);
        final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        final List<MemorySegment> day;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);   // the day's encoding, not what is measured
        try {
            day = List.of(SyntheticDay.segment("trade", D1, rows, syms, 7));
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        final TierPolicy parquet = new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(), Map.of()),
            TierPolicy.Tier.parse("lake", -1, "parquet/zstd", Map.of(), Map.of())));
        final TierPolicy cold = new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(), Map.of()),
            TierPolicy.Tier.objectStore("cold", -1, "parquet/zstd")));
        final String q = "{\"table\":\"trade\",\"where\":{\"sym\":\"S0123\"},\"select\":[\"time\",\"price\",\"size\"]}";
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        try (S3ProxyServer server = new S3ProxyServer(bucketDir);
             HistoricalDatabase plain = open(plainRoot, day, null);
             HistoricalDatabase lake = open(parquetRoot, day, null);
             S3ColdStore mover = new S3ColdStore(server.settings("bench/"), new TickMetrics());
             HistoricalDatabase moved = open(coldRoot, day, mover)) {
            final long m0 = System.nanoTime();
            assertThat(new TieringJob(lake, parquet, PartitionWriter.DEFAULT_BLOCK_BYTES).run(D1.plusDays(3)).failed()).isEmpty();
            final long m1 = System.nanoTime();
            assertThat(new TieringJob(moved, cold, PartitionWriter.DEFAULT_BLOCK_BYTES).run(D1.plusDays(3)).failed()).isEmpty();
            final long m2 = System.nanoTime();
            final TickMetrics metrics = new TickMetrics();
            try (S3ColdStore store = new S3ColdStore(server.settings("bench/"), metrics);
                 HistoricalDatabase replica = new HistoricalDatabase(replicaRoot, new TickMetrics())) {
                replica.coldStore(store);
                final long r0 = System.nanoTime();
                replica.reload();
                final long r1 = System.nanoTime();
                final List<List<Object>> want = S3ColdStoreTest.answer(engine, plain, q);
                final long f0 = System.nanoTime();
                final List<List<Object>> first = S3ColdStoreTest.answer(engine, replica, q);
                final long f1 = System.nanoTime();
                assertThat(first).isEqualTo(want);
                final long object = replica.partitions().get(0).tables().get(0).bytesOnDisk();
                final long fetched = metrics.counters().get("tick.hdb.cold.fetched.bytes").get();
                final long gets = metrics.counters().get("tick.hdb.cold.gets").get();
                final double warmCold = median(engine, replica, q);
                final double warmParquet = median(engine, lake, q);
                final double warmPlain = median(engine, plain, q);
                System.out.printf("%n cold tier, %,d trades, %d syms, one sym (%,d rows), s3proxy on loopback, load %s%n", rows, syms,
                    want.size(), Arrays.toString(loadAverage()));
                System.out.printf(" move to parquet (local) %,d ms; move to the store (write Parquet + upload + verify + manifest)"
                    + " %,d ms%n", (m1 - m0) / 1_000_000, (m2 - m1) / 1_000_000);
                System.out.printf(" reload listing the store (manifests + footers): %.1f ms%n", (r1 - r0) / 1e6);
                System.out.printf(" first query from the store: %.1f ms, %,d GETs, %,d of %,d bytes fetched (footer included)%n",
                    (f1 - f0) / 1e6, gets, fetched, object);
                System.out.printf(" warm (median of 21): store %.3f ms, local parquet %.3f ms (x%.2f), local plain %.3f ms (x%.2f)%n%n",
                    warmCold, warmParquet, warmCold / warmParquet, warmPlain, warmCold / warmPlain);
            }
        }
    }

    private static HistoricalDatabase open(final Path root, final List<MemorySegment> day, final S3ColdStore store) throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN, PartitionWriter.DEFAULT_BLOCK_BYTES, 2, PartitionWriter.WriteHook.NONE)
            .write(D1, day);
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        hdb.coldStore(store);
        hdb.reload();
        return hdb;
    }

    private static double median(final QueryEngine engine, final HistoricalDatabase hdb, final String q) {
        final double[] t = new double[21];
        for (int i = 0; i < 5; i++) {
            S3ColdStoreTest.answer(engine, hdb, q);
        }
        for (int i = 0; i < t.length; i++) {
            final long t0 = System.nanoTime();
            S3ColdStoreTest.answer(engine, hdb, q);
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(t);
        return t[t.length / 2];
    }

    private static String[] loadAverage() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ", 4);
        } catch (final java.io.IOException e) {
            return new String[] {"?"};
        }
    }
}
