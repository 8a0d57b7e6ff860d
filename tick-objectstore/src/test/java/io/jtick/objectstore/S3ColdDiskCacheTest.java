package io.jtick.objectstore;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.ColdStore;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The block cache's disk tier against a real S3-compatible server on loopback (s3proxy): an HDB
 * restarted over the same cache folder answers the six questions with no GET of data; damaged
 * block files (truncated, a flipped byte, another block's file) are detected, counted, deleted and
 * fetched again, and the answers stay right; a small disk budget is kept by evicting; a republished
 * object (a new ETag under the same key) is never answered from its old blocks.
 */
@ExtendWith(LeakCheck.class)
// waitSeconds: the store's idle connections are closed by the JDK's keep-alive cache, on its own clock
@LeakCheck.Options(perClass = true, waitSeconds = 20, ignoreThreads = {"Keep-Alive-Timer", "idle-connection-reaper", "sdk-", "qtp",
    "Scheduler-", "jclouds", "user thread", "Connection evictor", "S3Proxy-Jetty"})
class S3ColdDiskCacheTest {
    private static final LocalDate D1 = LocalDate.of(2026, 3, 2);
    private static final int ROWS = 6_000;
    private static final long DISK = 64L << 20;

    @TempDir
    static Path bucketDir;
    private static S3ProxyServer server;
    private static List<MemorySegment> day;
    private static int prefixes;

    @TempDir
    Path localRoot;
    @TempDir
    Path coldRoot;
    @TempDir
    Path replicaRoot;
    @TempDir
    Path restartedRoot;
    @TempDir
    Path cacheDir;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);

    @BeforeAll
    static void startStore() throws Exception {
        server = new S3ProxyServer(bucketDir);
        day = List.of(SyntheticDay.segment("trade", D1, ROWS, 30, 7), SyntheticDay.segment("quote", D1, ROWS, 30, 8));
    }

    @AfterAll
    static void stopStore() throws Exception {
        server.close();
    }

    @AfterEach
    void close() throws Exception {
        closeAll();
    }

    private void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    private HistoricalDatabase hdb(final Path root, final ColdStore store, final List<MemorySegment> segments) throws IOException {
        if (segments != null) {
            new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(D1, segments);
        }
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        opened.add(hdb);
        hdb.coldStore(store);
        hdb.reload();
        return hdb;
    }

    /** A store with blocks of {@code block} bytes, 256MB in memory and a disk tier of {@code diskBytes} in {@code cacheDir}. */
    private S3ColdStore store(final String prefix, final int block, final long diskBytes, final TickMetrics metrics) {
        final ObjectStoreSettings s = server.settings(prefix).withCache(256L << 20, block).withDiskCache(cacheDir, diskBytes)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), 2);
        final S3ColdStore store = new S3ColdStore(s, metrics);
        opened.add(store);
        return store;
    }

    /** Moves the day to a fresh prefix of the bucket; returns the prefix. */
    private String moveCold() throws IOException {
        final String prefix = nextPrefix();
        final S3ColdStore mover = new S3ColdStore(server.settings(prefix), new TickMetrics());
        opened.add(mover);
        final TierPolicy policy = new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(), Map.of()),
            TierPolicy.Tier.objectStore("cold", -1, "parquet/zstd")));
        assertThat(new TieringJob(hdb(coldRoot, mover, day), policy, 65_536).run(D1.plusDays(3)).failed()).isEmpty();
        return prefix;
    }

    private static synchronized String nextPrefix() {
        return "disk" + (++prefixes) + "/";
    }

    private static List<String> questions() {
        final long open = SyntheticDay.open(D1, SyntheticDay.NEW_YORK);
        return S3ColdStoreTest.sixQuestions("S0007", open + 3_600_000_000_000L, open + 7_200_000_000_000L);
    }

    private void assertAnswersAsLocal(final HistoricalDatabase replica, final HistoricalDatabase local) {
        for (final String q : questions()) {
            final List<List<Object>> want = S3ColdStoreTest.answer(engine, local, q);
            assertThat(want).as(q).isNotEmpty();
            assertThat(S3ColdStoreTest.answer(engine, replica, q)).as(q).isEqualTo(want);
        }
    }

    private static long counter(final TickMetrics m, final String name) {
        return m.counters().get(name).get();
    }

    private List<Path> blockFiles() throws IOException {
        try (Stream<Path> s = Files.list(cacheDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".blk")).sorted().toList();
        }
    }

    private long blockFileBytes() throws IOException {
        long n = 0;
        for (final Path p : blockFiles()) {
            n += Files.size(p);
        }
        return n;
    }

    /** Reads the day cold through a first store over the cache folder, then closes it all: the cache is left on disk. */
    private void warmTheDiskCache(final String prefix, final HistoricalDatabase local) throws Exception {
        final TickMetrics first = new TickMetrics();
        assertAnswersAsLocal(hdb(replicaRoot, store(prefix, 16 << 10, DISK, first), null), local);
        assertThat(counter(first, "tick.hdb.cold.gets")).isPositive();
        assertThat(counter(first, "tick.hdb.cold.cache.disk.misses")).isPositive();
        assertThat(first.gauges().get("tick.hdb.cold.cache.disk.bytes").getAsLong()).isPositive().isEqualTo(blockFileBytes());
        opened.remove(local);
        closeAll();
        opened.add(local);
        DecodedBlockCache.shared().clear();   // nothing decoded by the first HDB may answer for the restarted one
    }

    @Test
    void shouldAnswerARestartedHdbFromItsDiskCacheWithNoGetOfData() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, day);
        final String prefix = moveCold();
        warmTheDiskCache(prefix, local);
        final int files = blockFiles().size();
        assertThat(files).isPositive();

        final TickMetrics restarted = new TickMetrics();
        final HistoricalDatabase replica = hdb(restartedRoot, store(prefix, 16 << 10, DISK, restarted), null);
        assertThat(restarted.gauges().get("tick.hdb.cold.cache.disk.bytes").getAsLong()).as("found at start").isEqualTo(blockFileBytes());
        assertAnswersAsLocal(replica, local);
        // the footers at reload and every block the questions read came from disk: not one ranged GET
        assertThat(counter(restarted, "tick.hdb.cold.gets")).isZero();
        assertThat(counter(restarted, "tick.hdb.cold.fetched.bytes")).isZero();
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.hits")).isPositive();
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.misses")).isZero();
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.errors")).isZero();
        assertThat(blockFiles()).hasSize(files);
    }

    @Test
    void shouldDetectCountDeleteAndRefetchDamagedBlockFilesAndStillAnswerRight() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, day);
        final String prefix = moveCold();
        warmTheDiskCache(prefix, local);
        final List<Path> files = blockFiles();
        assertThat(files).hasSizeGreaterThanOrEqualTo(3);
        // every file damaged, one of three ways: cut short, one byte flipped in its data, another block's file under its name
        final byte[] other = Files.readAllBytes(files.get(0));
        for (int i = 0; i < files.size(); i++) {
            final Path f = files.get(i);
            switch (i % 3) {
                case 0 -> {
                    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                        ch.truncate(ch.size() / 2);
                    }
                }
                case 1 -> {
                    final byte[] b = Files.readAllBytes(f);
                    b[b.length - 7] ^= 0x10;
                    Files.write(f, b);
                }
                default -> Files.write(f, other);
            }
        }

        final TickMetrics restarted = new TickMetrics();
        final HistoricalDatabase replica = hdb(restartedRoot, store(prefix, 16 << 10, DISK, restarted), null);
        assertAnswersAsLocal(replica, local);
        // the same reads as before, so each damaged file was read once, rejected, and its block fetched again
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.errors")).isEqualTo(files.size());
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.hits")).isZero();
        assertThat(counter(restarted, "tick.hdb.cold.gets")).isPositive();

        // the fetched blocks were written again, whole: a third HDB reads them all from disk
        closeAll();
        final HistoricalDatabase again = hdb(localRoot, null, null);
        DecodedBlockCache.shared().clear();
        final TickMetrics third = new TickMetrics();
        final HistoricalDatabase replica3 = hdb(replicaRoot, store(prefix, 16 << 10, DISK, third), null);
        assertAnswersAsLocal(replica3, again);
        assertThat(counter(third, "tick.hdb.cold.gets")).isZero();
        assertThat(counter(third, "tick.hdb.cold.cache.disk.errors")).isZero();
    }

    @Test
    void shouldKeepTheDiskBudgetByEvictingAndStillAnswerRight() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, day);
        final String prefix = moveCold();
        final TickMetrics metrics = new TickMetrics();
        final long budget = 64 << 10;
        // 8KB blocks, 32KB in memory, 64KB on disk: the questions read far more than either holds
        final ObjectStoreSettings s = server.settings(prefix).withCache(32 << 10, 8 << 10).withDiskCache(cacheDir, budget);
        final S3ColdStore store = new S3ColdStore(s, metrics);
        opened.add(store);
        final HistoricalDatabase replica = hdb(replicaRoot, store, null);
        for (int round = 0; round < 2; round++) {
            assertAnswersAsLocal(replica, local);
        }
        assertThat(counter(metrics, "tick.hdb.cold.cache.disk.evictions")).isPositive();
        assertThat(metrics.gauges().get("tick.hdb.cold.cache.disk.bytes").getAsLong()).isPositive().isLessThanOrEqualTo(budget)
            .isEqualTo(blockFileBytes());
        assertThat(blockFileBytes()).isLessThanOrEqualTo(budget);
        assertThat(counter(metrics, "tick.hdb.cold.cache.disk.errors")).isZero();
    }

    @Test
    void shouldNeverAnswerARepublishedObjectFromTheBlocksOfItsOldVersion() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, day);
        final String prefix = moveCold();
        warmTheDiskCache(prefix, local);
        final List<Path> oldFiles = blockFiles();

        // the same day republished with other rows: the same keys, new ETags
        final List<MemorySegment> other = List.of(SyntheticDay.segment("trade", D1, ROWS / 2, 30, 17),
            SyntheticDay.segment("quote", D1, ROWS / 2, 30, 18));
        final Path otherRoot = Files.createDirectories(restartedRoot.resolve("other"));
        final HistoricalDatabase otherLocal = hdb(otherRoot, null, other);
        final S3ColdStore publisher = store(prefix, 16 << 10, 0, new TickMetrics());
        for (final String table : List.of("trade", "quote")) {
            try (StoredTable t = TableFormats.open(otherRoot.resolve(D1 + "/" + table))) {
                publisher.publish(t, "parquet/zstd");
            }
        }
        final String trade = S3ColdStoreTest.sixQuestions("S0007", 0, 1).get(0);
        assertThat(S3ColdStoreTest.answer(engine, otherLocal, trade)).as("the data did change")
            .isNotEqualTo(S3ColdStoreTest.answer(engine, local, trade));

        DecodedBlockCache.shared().clear();
        final TickMetrics restarted = new TickMetrics();
        final Path replicaOfNew = Files.createDirectories(restartedRoot.resolve("replica"));
        final HistoricalDatabase replica = hdb(replicaOfNew, store(prefix, 16 << 10, DISK, restarted), null);
        assertAnswersAsLocal(replica, otherLocal);
        assertThat(counter(restarted, "tick.hdb.cold.gets")).as("the new version fetched").isPositive();
        assertThat(counter(restarted, "tick.hdb.cold.cache.disk.hits")).as("no old block served").isZero();
        assertThat(oldFiles).as("the old blocks were there to be (wrongly) found").allSatisfy(f -> assertThat(f).exists());
    }
}
