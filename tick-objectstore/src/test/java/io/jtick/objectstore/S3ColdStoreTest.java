package io.jtick.objectstore;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.PartitionUnavailableException;
import io.jtick.core.hdb.ops.RetentionPolicy;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.ColdStore;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cold tier against a real S3-compatible server on loopback (s3proxy, filesystem backend, in
 * this JVM): a day moved to the bucket answers the six questions of the query benchmark as its local
 * copy does, from the mover and from a second HDB sharing the bucket; a store stopped mid-move or
 * mid-query, bad credentials and a missing object each fail clearly, are counted, and the next
 * move or query works once the store is back; a small cache evicts and still answers right.
 */
@ExtendWith(LeakCheck.class)
// waitSeconds: the store's idle connections are closed by the JDK's keep-alive cache, on its own clock
@LeakCheck.Options(perClass = true, waitSeconds = 20, ignoreThreads = {"Keep-Alive-Timer", "idle-connection-reaper", "sdk-", "qtp",
    "Scheduler-", "jclouds", "user thread", "Connection evictor", "S3Proxy-Jetty"})
class S3ColdStoreTest {
    private static final LocalDate D1 = LocalDate.of(2026, 3, 2);
    private static final int ROWS = 6_000;

    @TempDir
    static Path bucketDir;
    private static S3ProxyServer server;

    @TempDir
    Path localRoot;
    @TempDir
    Path coldRoot;
    @TempDir
    Path replicaRoot;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private static int prefixes;

    /** Built once: the synthetic day's encoding is slow under the build's paranoid Netty leak detection. */
    private static List<MemorySegment> day;

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
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        server.start();
    }

    private static List<MemorySegment> day() {
        return day;
    }

    private HistoricalDatabase hdb(final Path root, final ColdStore store, final boolean write) throws IOException {
        if (write) {
            new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(D1, day());
        }
        final HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics());
        opened.add(hdb);
        hdb.coldStore(store);
        hdb.reload();
        return hdb;
    }

    private S3ColdStore store(final ObjectStoreSettings settings, final TickMetrics metrics) {
        final ObjectStoreSettings small = settings.cacheBytes() == ObjectStoreSettings.of(null, "b", "", null, null).cacheBytes()
            ? settings.withCache(settings.cacheBytes(), 16 << 10) : settings;
        final S3ColdStore s = new S3ColdStore(small.withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), 2), metrics);
        opened.add(s);
        return s;
    }

    private static synchronized String prefix() {
        return "hdb" + (++prefixes) + "/";
    }

    private static TierPolicy coldAfterOneDay() {
        return new TierPolicy(List.of(TierPolicy.Tier.parse("hot", 1, "none", Map.of(), Map.of()),
            TierPolicy.Tier.objectStore("cold", -1, "parquet/zstd")));
    }

    private static TieringJob.Report tier(final HistoricalDatabase hdb, final LocalDate today) {
        return new TieringJob(hdb, coldAfterOneDay(), 65_536).run(today);
    }

    static List<List<Object>> answer(final QueryEngine engine, final HistoricalDatabase hdb, final String json) {
        final PartitionSource source = new PartitionSource(hdb);
        final ResultTable t = new ResultTable();
        engine.execute(engine.prepare(json, source), source, t);
        return t.rows();
    }

    /** The six questions of the query benchmark, as the bench asks them. */
    static List<String> sixQuestions(final String sym, final long from, final long to) {
        return List.of(
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":{\"open\":{\"first\":\"price\"},"
                + "\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
                + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
                + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}",
            "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + from + "," + to + "]}},"
                + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}");
    }

    private static List<String> questions() {
        final long open = SyntheticDay.open(D1, SyntheticDay.NEW_YORK);
        return sixQuestions("S0007", open + 3_600_000_000_000L, open + 7_200_000_000_000L);
    }

    private static final String ONE_SYM = "{\"table\":\"trade\",\"where\":{\"sym\":\"S0011\"},\"select\":[\"time\",\"price\",\"size\"]}";

    @Test
    void shouldPublishByManifestAndAnswerTheSixQuestionsAsTheLocalCopyFromTheMoverAndAReplica() throws IOException {
        final HistoricalDatabase local = hdb(localRoot, null, true);
        final TickMetrics metrics = new TickMetrics();
        final S3ColdStore store = store(server.settings(prefix()), metrics);
        final HistoricalDatabase cold = hdb(coldRoot, store, true);

        final TieringJob.Report report = tier(cold, D1.plusDays(3));
        assertThat(report.failed()).isEmpty();
        assertThat(report.moved()).extracting(TieringJob.Moved::tier).containsExactly("cold", "cold");
        assertThat(Files.exists(coldRoot.resolve(D1.toString()))).as("local copy deleted").isFalse();
        assertThat(cold.partitions().get(0).tables()).extracting(HistoricalDatabase.TableInfo::format)
            .containsExactly("s3:parquet/zstd", "s3:parquet/zstd");
        assertThat(store.list()).containsExactlyInAnyOrder(store.list().toArray(new ColdStore.ColdPartition[0]))
            .extracting(ColdStore.ColdPartition::table).containsExactlyInAnyOrder("trade", "quote");
        assertThat(Files.exists(bucketDir.resolve(S3ProxyServer.BUCKET).resolve(store.dataKey(D1, "trade")))).as("Hive-style key").isTrue();
        assertThat(tier(cold, D1.plusDays(4)).moved()).as("in tier").isEmpty();

        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        final TickMetrics replicaMetrics = new TickMetrics();
        final HistoricalDatabase replica = hdb(replicaRoot, store(server.settings(store.settings().prefix()), replicaMetrics), false);
        assertThat(replica.dates()).containsExactly(D1);

        // a first query of one sym downloads its footer and the chunks it decodes, not the day
        final long objectBytes = replica.partitions().get(0).tables().stream().filter(t -> t.table().equals("trade")).findFirst()
            .orElseThrow().bytesOnDisk();
        final long footer = replicaMetrics.counters().get("tick.hdb.cold.fetched.bytes").get();
        assertThat(answer(engine, replica, ONE_SYM)).isEqualTo(answer(engine, local, ONE_SYM));
        final long oneSym = replicaMetrics.counters().get("tick.hdb.cold.fetched.bytes").get() - footer;
        // this small day is one row group, so the sym's group is the whole table: of it, only the 3 columns asked are fetched
        // (the figures at scale, where a sym is a small part of its group's rows, are the cold benchmark's)
        assertThat(oneSym).as("bytes fetched for one sym of a %d-byte object", objectBytes).isPositive().isLessThan(objectBytes);
        assertThat(replicaMetrics.counters().get("tick.hdb.cold.cache.misses").get()).isPositive();

        for (final String q : questions()) {
            final List<List<Object>> want = answer(engine, local, q);
            assertThat(want).as(q).isNotEmpty();
            assertThat(answer(engine, cold, q)).as(q).isEqualTo(want);
            assertThat(answer(engine, replica, q)).as(q).isEqualTo(want);
        }
        // warm: answered from the cache, no more GETs
        final long gets = replicaMetrics.counters().get("tick.hdb.cold.gets").get();
        assertThat(answer(engine, replica, ONE_SYM)).isEqualTo(answer(engine, local, ONE_SYM));
        assertThat(replicaMetrics.counters().get("tick.hdb.cold.gets").get()).isEqualTo(gets);
        assertThat(replicaMetrics.counters().get("tick.hdb.cold.cache.hits").get()).isPositive();
    }

    @Test
    void shouldKeepTheLocalCopyWhenTheStoreStopsMidMoveAndFinishTheMoveOnTheNextRun() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, true);
        final TickMetrics metrics = new TickMetrics();
        final S3ColdStore store = store(server.settings(prefix()), metrics);
        final HistoricalDatabase cold = hdb(coldRoot, store, true);
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);

        server.stop();
        final TieringJob.Report failed = tier(cold, D1.plusDays(3));
        assertThat(failed.moved()).isEmpty();
        assertThat(failed.failed()).hasSize(2).allSatisfy(f -> assertThat(f).contains("reason=unreachable").contains(store.describe()));
        assertThat(metrics.counters().get("tick.hdb.cold.errors|reason=unreachable").get()).isPositive();
        assertThat(Files.isDirectory(coldRoot.resolve(D1 + "/trade"))).as("local copy authoritative").isTrue();
        assertThat(answer(engine, cold, ONE_SYM)).isEqualTo(answer(engine, local, ONE_SYM));
        server.start();

        // a crash between the upload and the manifest: the data is in the bucket, unpublished (here: a torn copy of it)
        final Path orphan = bucketDir.resolve(S3ProxyServer.BUCKET).resolve(store.dataKey(D1, "trade"));
        Files.createDirectories(orphan.getParent());
        Files.write(orphan, new byte[] {'P', 'A', 'R', '1', 0, 0});
        cold.reload();
        assertThat(store.list()).as("never visible without its manifest").isEmpty();
        assertThat(cold.partitions().get(0).tables()).extracting(HistoricalDatabase.TableInfo::format).containsOnly("jtick");

        final TieringJob.Report rerun = tier(cold, D1.plusDays(3));
        assertThat(rerun.failed()).isEmpty();
        assertThat(rerun.moved()).hasSize(2);
        assertThat(Files.exists(coldRoot.resolve(D1.toString()))).isFalse();
        for (final String q : questions()) {
            assertThat(answer(engine, cold, q)).as(q).isEqualTo(answer(engine, local, q));
        }
    }

    @Test
    void shouldFailAQueryClearlyWhenTheStoreStopsMidQueryAndAnswerRightOnceItIsBack() throws Exception {
        final HistoricalDatabase local = hdb(localRoot, null, true);
        final S3ColdStore mover = store(server.settings(prefix()), new TickMetrics());
        assertThat(tier(hdb(coldRoot, mover, true), D1.plusDays(3)).failed()).isEmpty();
        final TickMetrics metrics = new TickMetrics();
        final HistoricalDatabase replica = hdb(replicaRoot, store(server.settings(mover.settings().prefix()), metrics), false);
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);

        server.stop();   // the footers were read at reload: the query's first GET meets a stopped store
        assertThatThrownBy(() -> answer(engine, replica, ONE_SYM)).isInstanceOf(PartitionUnavailableException.class)
            .hasMessageContaining("date=" + D1).hasMessageContaining("table=trade").hasMessageContaining(mover.describe())
            .hasMessageContaining("reason=unreachable");
        assertThat(metrics.counters().get("tick.hdb.cold.errors|reason=unreachable").get()).isPositive();

        server.start();
        assertThat(answer(engine, replica, ONE_SYM)).isEqualTo(answer(engine, local, ONE_SYM));
        for (final String q : questions()) {
            assertThat(answer(engine, replica, q)).as(q).isEqualTo(answer(engine, local, q));
        }
    }

    @Test
    void shouldNameBadCredentialsAndAMissingObject() throws Exception {
        final S3ColdStore mover = store(server.settings(prefix()), new TickMetrics());
        final HistoricalDatabase cold = hdb(coldRoot, mover, true);
        assertThat(tier(cold, D1.plusDays(3)).failed()).isEmpty();

        final TickMetrics badMetrics = new TickMetrics();
        final ObjectStoreSettings s = mover.settings();
        final S3ColdStore bad = store(ObjectStoreSettings.of(s.endpoint(), s.bucket(), s.prefix(), S3ProxyServer.ACCESS, "wrong-secret"),
            badMetrics);
        assertThatThrownBy(bad::list).isInstanceOf(IOException.class).hasMessageContaining("reason=denied")
            .hasMessageContaining(bad.describe());
        assertThat(badMetrics.counters().get("tick.hdb.cold.errors|reason=denied").get()).isPositive();
        final HistoricalDatabase denied = hdb(replicaRoot, bad, false);
        assertThat(denied.dates()).as("a store it cannot list adds nothing, stops nothing").isEmpty();

        final TickMetrics metrics = new TickMetrics();
        final HistoricalDatabase replica = hdb(localRoot, store(server.settings(s.prefix()), metrics), false);
        Files.delete(bucketDir.resolve(S3ProxyServer.BUCKET).resolve(mover.dataKey(D1, "trade")));
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        assertThatThrownBy(() -> answer(engine, replica, ONE_SYM)).isInstanceOf(PartitionUnavailableException.class)
            .hasMessageContaining("reason=missing").hasMessageContaining("table=trade").hasMessageContaining("date=" + D1);
        assertThat(metrics.counters().get("tick.hdb.cold.errors|reason=missing").get()).isPositive();
    }

    @Test
    void shouldEvictUnderASmallCacheAndStillAnswerRight() throws IOException {
        final HistoricalDatabase local = hdb(localRoot, null, true);
        final S3ColdStore mover = store(server.settings(prefix()), new TickMetrics());
        assertThat(tier(hdb(coldRoot, mover, true), D1.plusDays(3)).failed()).isEmpty();
        final TickMetrics metrics = new TickMetrics();
        final long budget = 32 << 10;
        final S3ColdStore small = store(server.settings(mover.settings().prefix()).withCache(budget, 8 << 10), metrics);
        final HistoricalDatabase replica = hdb(replicaRoot, small, false);
        final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 2);
        for (int round = 0; round < 2; round++) {
            for (final String q : questions()) {
                assertThat(answer(engine, replica, q)).as(q).isEqualTo(answer(engine, local, q));
            }
        }
        assertThat(metrics.counters().get("tick.hdb.cold.cache.evictions").get()).isPositive();
        assertThat(metrics.gauges().get("tick.hdb.cold.cache.bytes").getAsLong()).isPositive().isLessThanOrEqualTo(budget);
        assertThat(metrics.counters().get("tick.hdb.cold.cache.misses").get()).isPositive();
    }

    @Test
    void shouldDeleteTheManifestThenTheDataWhenRetentionEnds() throws IOException {
        final S3ColdStore store = store(server.settings(prefix()), new TickMetrics());
        final HistoricalDatabase cold = hdb(coldRoot, store, true);
        final RetentionPolicy rule = RetentionPolicy.parse(coldAfterOneDay(), Map.of("trade", "hot P1D, cold P30D, delete"));
        assertThat(new TieringJob(cold, rule, 65_536).run(D1.plusDays(3)).moved()).hasSize(2);
        final TieringJob.Report gone = new TieringJob(cold, rule, 65_536).run(D1.plusDays(40));
        assertThat(gone.failed()).isEmpty();
        assertThat(gone.deleted()).extracting(TieringJob.Deleted::table).containsExactly("trade");
        assertThat(store.list()).extracting(ColdStore.ColdPartition::table).containsExactly("quote");
        assertThat(Files.exists(bucketDir.resolve(S3ProxyServer.BUCKET).resolve(store.dataKey(D1, "trade")))).isFalse();
        assertThat(cold.partitions().get(0).tables()).extracting(HistoricalDatabase.TableInfo::table).containsExactly("quote");
    }
}
