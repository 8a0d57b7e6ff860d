package io.jtick.hdb;

import io.jtick.boot.PropertyChecks;
import io.jtick.core.hdb.ops.RetentionPolicy;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.replay.ReplaySettings;
import io.jtick.objectstore.ObjectStoreSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.unit.DataSize;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HDB service settings ({@code tick.hdb.*}, see docs/configuration.md).
 *
 * @param root       directory holding one {@code yyyy-MM-dd} directory per partition
 * @param tiers      storage tiers, youngest first; empty = {@link TierPolicy#defaults()} (hot ≤ 5 days plain,
 *                   warm ≤ 30 days auto/lz4, cold auto/zstd:3)
 * @param blockBytes raw bytes per block of the files the tiering job writes (a power of two, 64 B..64 MB)
 * @param tiering    when the tiering job runs
 * @param study      defaults of {@code POST /api/compression-study}
 * @param gateway    where the gateway ({@code POST /api/gateway/query}) finds today's rows
 * @param importMaxBytes largest partition {@code PUT /api/partitions/<date>} accepts (file bytes; an RDB's end of day
 *                   sends its day this way when the two share no directory)
 * @param decodedBlockCache bytes of decoded values the process keeps of encoded (lz4/snappy/zstd) blocks for point and
 *                   window reads, and of Parquet pages ({@code DecodedBlockCache}); 0 = none; unset = a quarter of the heap,
 *                   at least 64MB
 * @param preloadDays after each reload, the tables it opened for this many newest dates are read once in the background
 *                   (every block checksummed, the mapped pages touched), so the first query of the day pays for neither;
 *                   0 = off
 * @param replayPort the replay port: consumers ask it for historical replays in the native wire format (0 = any free port)
 * @param replay     how replays run ({@code tick.hdb.replay.*})
 * @param imports    the bulk import of recorded files ({@code tick.hdb.import.*}, {@code POST /api/import})
 * @param pgPort     the PostgreSQL wire protocol port (8813): the gateway's answers (partitions and today's RDB) when
 *                   {@code tick.hdb.gateway.rdb-url} is set, else the partitions'; -1 = off, 0 = any free port
 * @param pgHost     address the PostgreSQL port binds to (off loopback it asks for the API token as REST does)
 * @param kdbPort    the kdb+ IPC port for q clients' queries (5022): the partitions, or the gateway's view with
 *                   {@code kdb-gateway=true}; -1 = off, 0 = any free port
 * @param kdbHost    address the kdb+ port binds to (off loopback, without a users file, only the API token logs in)
 * @param kdbUsers   q's {@code -u} file of {@code user:password} lines for the kdb+ port; empty = none
 * @param kdbGateway true: the kdb+ port answers across the partitions and today's RDB (needs {@code tick.hdb.gateway.rdb-url}),
 *                   as a kdb+ gateway process would; false: the partitions only, as a kdb+ HDB process does
 * @param export     where {@code POST /api/export} writes Parquet days ({@code tick.hdb.export.*})
 * @param retention  per table, how long a day stays in each tier and when it is deleted ({@link RetentionPolicy})
 * @param objectStore the cold tier's bucket ({@code tick.hdb.object-store.*}); when enabled, the default tier policy's
 *                   {@code cold} tier lives there as Parquet
 */
@ConfigurationProperties("tick.hdb")
public record HdbProperties(
    @DefaultValue("./var/hdb") Path root,
    @DefaultValue({}) List<Tier> tiers,
    @DefaultValue("128KB") DataSize blockBytes,
    @DefaultValue Tiering tiering,
    @DefaultValue Study study,
    @DefaultValue Gateway gateway,
    @DefaultValue("64GB") DataSize importMaxBytes,
    DataSize decodedBlockCache,
    @DefaultValue("1") int preloadDays,
    @DefaultValue("5012") int replayPort,
    @DefaultValue Replay replay,
    @Name("import") @DefaultValue Imports imports,
    @DefaultValue("8813") int pgPort,
    @DefaultValue("127.0.0.1") String pgHost,
    @DefaultValue("5022") int kdbPort,
    @DefaultValue("127.0.0.1") String kdbHost,
    String kdbUsers,
    @DefaultValue("false") boolean kdbGateway,
    @Name("export") @DefaultValue Export export,
    Map<String, String> retention,
    @DefaultValue ObjectStore objectStore) {

    /** A bad value stops start-up naming its key. */
    public HdbProperties {
        PropertyChecks.present("tick.hdb.root", root);
        PropertyChecks.present("tick.hdb.tiers", tiers);
        PropertyChecks.present("tick.hdb.block-bytes", blockBytes);
        PropertyChecks.present("tick.hdb.import-max-bytes", importMaxBytes);
        PropertyChecks.range("tick.hdb.preload-days", preloadDays, 0, Integer.MAX_VALUE);
        PropertyChecks.range("tick.hdb.replay-port", replayPort, 0, 65535);
        PropertyChecks.range("tick.hdb.pg-port", pgPort, -1, 65535);
        PropertyChecks.present("tick.hdb.pg-host", pgHost);
        PropertyChecks.range("tick.hdb.kdb-port", kdbPort, -1, 65535);
        PropertyChecks.present("tick.hdb.kdb-host", kdbHost);
    }

    /**
     * The cold tier on S3-compatible object storage ({@code tick.hdb.object-store.*}, docs/operations.md "Cold tier").
     *
     * @param enabled        true: list and read the bucket's partitions, and let tiers with {@code object-store: true} (and the
     *                       default policy's {@code cold}) move days there
     * @param endpoint       the S3 API's URL for an S3-compatible server ({@code http://minio:9000}); empty: AWS's for the region
     * @param bucket         the bucket (created beforehand)
     * @param prefix         key prefix of everything the HDB writes ({@code jtick/hdb})
     * @param region         the region requests are signed for
     * @param pathStyle      path-style URLs ({@code http://host/bucket/key}), as S3-compatible servers want
     * @param accessKey      the access key; empty: the SDK's default chain ({@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}
     *                       in the environment, e.g. from a Kubernetes Secret, a profile, an instance or pod role)
     * @param secretKey      the secret key, with the access key
     * @param cacheSize      bytes of fetched ranges kept in memory (LRU); 0: none
     * @param blockSize      the cache's unit of fetching (a power of two, 4KB..64MB)
     * @param partSize       a partition larger than this is uploaded in parts of this size (multipart upload; AWS S3: >= 5MB)
     * @param connectTimeout TCP connect timeout
     * @param readTimeout    most time a request may wait for the next bytes of its response (a stalled GET fails after it)
     * @param requestTimeout most time one request attempt may take in all (a slow GET fails the query after it)
     * @param callTimeout    most time a call may take with its retries
     * @param maxAttempts    attempts per call
     * @param diskCacheDir   the folder of the block cache's disk tier; empty: {@code <root>/.cold-cache} (a hidden folder,
     *                       which the partition scan and the tiering job never take for a date)
     * @param diskCacheSize  bytes of fetched blocks kept on local disk under the memory cache, across restarts (LRU); 0: none
     */
    public record ObjectStore(@DefaultValue("false") boolean enabled, String endpoint, String bucket,
                              @DefaultValue("jtick/hdb") String prefix,
                              @DefaultValue("us-east-1") String region, @DefaultValue("true") boolean pathStyle, String accessKey,
                              String secretKey, @DefaultValue("512MB") DataSize cacheSize,
                              @DefaultValue("256KB") DataSize blockSize, @DefaultValue("64MB") DataSize partSize,
                              @DefaultValue("2s") Duration connectTimeout,
                              @DefaultValue("5s") Duration readTimeout, @DefaultValue("10s") Duration requestTimeout,
                              @DefaultValue("30s") Duration callTimeout,
                              @DefaultValue("3") int maxAttempts, String diskCacheDir,
                              @DefaultValue("4GB") DataSize diskCacheSize) {
        public ObjectStore {
            PropertyChecks.present("tick.hdb.object-store.cache-size", cacheSize);
            PropertyChecks.present("tick.hdb.object-store.block-size", blockSize);
            PropertyChecks.present("tick.hdb.object-store.part-size", partSize);
            PropertyChecks.present("tick.hdb.object-store.connect-timeout", connectTimeout);
            PropertyChecks.present("tick.hdb.object-store.read-timeout", readTimeout);
            PropertyChecks.present("tick.hdb.object-store.request-timeout", requestTimeout);
            PropertyChecks.present("tick.hdb.object-store.call-timeout", callTimeout);
            PropertyChecks.atLeast("tick.hdb.object-store.max-attempts", maxAttempts, 1);
            PropertyChecks.present("tick.hdb.object-store.disk-cache-size", diskCacheSize);
        }

        /** The folder of the disk cache under the HDB's folder {@code root} when none is set. */
        static final String DEFAULT_DISK_CACHE = ".cold-cache";

        /** The core settings, checked; a bad value stops start-up naming its key. */
        public ObjectStoreSettings settings(final Path root) {
            if (bucket == null || bucket.isBlank()) {
                throw new IllegalArgumentException("the bucket is required when the object store is enabled "
                    + "[key=tick.hdb.object-store.bucket]");
            }
            final URI uri;
            try {
                uri = endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint.trim());
            } catch (final IllegalArgumentException e) {
                throw new IllegalArgumentException("bad endpoint [key=tick.hdb.object-store.endpoint, value=" + endpoint + "]", e);
            }
            return new ObjectStoreSettings(uri, bucket, prefix, region, pathStyle, accessKey, secretKey, cacheSize.toBytes(),
                (int) Math.min(Integer.MAX_VALUE, blockSize.toBytes()), partSize.toBytes(), connectTimeout, readTimeout, requestTimeout,
                callTimeout, maxAttempts, diskCacheDir == null || diskCacheDir.isBlank() ? root.resolve(DEFAULT_DISK_CACHE)
                : Path.of(diskCacheDir.trim()), diskCacheSize.toBytes())
                .validate();
        }
    }

    /**
     * Retention per table ({@code tick.hdb.retention.<table>}, e.g. {@code hot P7D, parquet P90D, cold P5Y, delete});
     * a bad rule stops start-up naming its key.
     */
    public RetentionPolicy retentionPolicy(final TierPolicy policy) {
        try {
            return RetentionPolicy.parse(policy, retention == null ? Map.of() : retention);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("bad retention rule [key=tick.hdb.retention]: " + e.getMessage(), e);
        }
    }

    /**
     * Parquet export ({@code tick.hdb.export.*}, {@code POST /api/export}).
     *
     * @param dir {@code POST /api/export} writes under this folder only (a request's {@code dir} resolves against it)
     */
    public record Export(@DefaultValue("./var/export") String dir) {
        public Export {
            PropertyChecks.text("tick.hdb.export.dir", dir);
        }

        /** The folder, as a path. */
        public Path path() {
            return Path.of(dir);
        }
    }

    /**
     * Historical replay ({@code tick.hdb.replay.*}; the port is {@code tick.hdb.replay-port}).
     *
     * @param enabled          false: no replay port
     * @param host             address the replay port binds to
     * @param threads          event-loop threads serving consumers; 0 = one per core
     * @param rowsPerUpdate    rows per UPDATE frame when a request asks for 0; key {@code batch-rows}, as users already set it
     * @param maxRowsPerUpdate most rows per frame a request may ask for; key {@code max-batch-rows}
     * @param windowRows       rows a reader orders by time at once (its buffers: about 2 x windowRows x (row width + 28) bytes)
     * @param sharedFrames     frames a stream keeps for the consumers sharing it; a consumer further behind reads on its own
     * @param writeBufferLow   a consumer's outbound low water mark
     * @param writeBufferHigh  a consumer's outbound high water mark (above it, nothing more is written until it reads)
     * @param paceQuantum      recorded pace: most wall time of recorded gaps one frame spans
     * @param zone             zone of a time-of-day window when the request names none
     * @param scratchDir       where compressed columns are decoded for a replay (sparse mapped files, unlinked);
     *                         empty = {@code root/.replay}
     * @param stall            how long a shared stream with a full ring waits for its slowest consumer to take a frame
     *                         before leaving it behind (that one then reads on its own)
     */
    public record Replay(@DefaultValue("true") boolean enabled, @DefaultValue("127.0.0.1") String host,
                         @DefaultValue("0") int threads,
                         @Name("batch-rows") @DefaultValue("8192") int rowsPerUpdate,
                         @Name("max-batch-rows") @DefaultValue("1048576") int maxRowsPerUpdate,
                         @DefaultValue("65536") int windowRows,
                         @DefaultValue("64") int sharedFrames, @DefaultValue("1MB") DataSize writeBufferLow,
                         @DefaultValue("4MB") DataSize writeBufferHigh, @DefaultValue("1ms") Duration paceQuantum,
                         @DefaultValue("America/New_York") ZoneId zone, Path scratchDir,
                         @DefaultValue("500ms") Duration stall) {
        public Replay {
            PropertyChecks.text("tick.hdb.replay.host", host);
            PropertyChecks.range("tick.hdb.replay.threads", threads, 0, 256);
            PropertyChecks.atLeast("tick.hdb.replay.batch-rows", rowsPerUpdate, 1);
            PropertyChecks.atLeast("tick.hdb.replay.max-batch-rows", maxRowsPerUpdate, 1);
            PropertyChecks.atLeast("tick.hdb.replay.window-rows", windowRows, 1024);
            PropertyChecks.atLeast("tick.hdb.replay.shared-frames", sharedFrames, 2);
            PropertyChecks.present("tick.hdb.replay.write-buffer-low", writeBufferLow);
            PropertyChecks.present("tick.hdb.replay.write-buffer-high", writeBufferHigh);
            PropertyChecks.present("tick.hdb.replay.pace-quantum", paceQuantum);
            PropertyChecks.present("tick.hdb.replay.zone", zone);
            PropertyChecks.present("tick.hdb.replay.stall", stall);
        }
    }

    /**
     * The bulk import ({@code tick.hdb.import.*}).
     *
     * @param dataDir         {@code POST /api/import} reads files under this folder only (relative paths resolve against it)
     * @param zone            a row goes under its date in this zone unless the request names another
     * @param maxBufferedRows rows held in memory before completed dates are written early
     */
    public record Imports(@DefaultValue("../shared/data") String dataDir, @DefaultValue("America/New_York") ZoneId zone,
                          @DefaultValue("50000000") long maxBufferedRows) {
        public Imports {
            PropertyChecks.text("tick.hdb.import.data-dir", dataDir);
            PropertyChecks.present("tick.hdb.import.zone", zone);
            PropertyChecks.atLeast("tick.hdb.import.max-buffered-rows", maxBufferedRows, 1);
        }

        /** The folder, as a path (a String above: Spring reads a {@code Path} default like {@code ../x} as a class-path resource). */
        public Path dataPath() {
            return Path.of(dataDir);
        }
    }

    /** The replay server's settings. */
    public ReplaySettings replaySettings() {
        final Replay r = replay;
        return new ReplaySettings(r.host(), replayPort,
            r.threads() == 0 ? Math.max(1, Runtime.getRuntime().availableProcessors()) : r.threads(), r.rowsPerUpdate(),
            r.maxRowsPerUpdate(), r.windowRows(), r.sharedFrames(), (int) Math.min(Integer.MAX_VALUE, r.writeBufferLow().toBytes()),
            (int) Math.min(Integer.MAX_VALUE, r.writeBufferHigh().toBytes()), r.paceQuantum().toNanos(), r.zone(),
            r.scratchDir() != null ? r.scratchDir() : root.resolve(".replay"), r.stall().toMillis()).validate();
    }

    /**
     * The gateway's RDB ({@code tick.hdb.gateway.*}).
     *
     * @param rdbUrl  the RDB's base URL, like {@code http://127.0.0.1:8011}; empty = no gateway (it answers 503 saying so)
     * @param timeout connect and response timeout of each request to the RDB
     */
    public record Gateway(String rdbUrl, @DefaultValue("10s") Duration timeout) {
        public Gateway {
            PropertyChecks.present("tick.hdb.gateway.timeout", timeout);
        }

        public boolean enabled() {
            return rdbUrl != null && !rdbUrl.isBlank();
        }
    }

    /**
     * One tier ({@code tick.hdb.tiers[i].*}).
     *
     * @param name       hot, warm, cold, ...
     * @param maxAgeDays oldest partition (days before today) in this tier; -1 = no limit (last tier only)
     * @param encoding   default encoding of the tier's columns ({@code none} or {@code plain}, {@code lz4}, {@code auto/zstd:3},
     *                   {@code dod+shuffle/zstd:1}, ...)
     * @param types      encoding per column type name ({@code timestamp}, {@code float64}, ...)
     * @param columns    encoding per column name or {@code table.column} (in YAML write such keys as {@code "[trade.price]"})
     * @param objectStore the tier's days live in the object store ({@code tick.hdb.object-store.*}) as Parquet
     *                   ({@code encoding}: {@code parquet/zstd}, {@code parquet/snappy}, ...)
     */
    public record Tier(String name, @DefaultValue("-1") int maxAgeDays, String encoding,
                       Map<String, String> types, Map<String, String> columns, @DefaultValue("false") boolean objectStore) {
        public Tier {
            PropertyChecks.text("tick.hdb.tiers[].name", name);
            PropertyChecks.text("tick.hdb.tiers[].encoding", encoding);
        }
    }

    /**
     * When the tiering job runs ({@code tick.hdb.tiering.*}).
     *
     * @param enabled    false: only {@code POST /api/tiering/run} moves partitions
     * @param cron       Spring cron expression (second minute hour day month weekday) in {@code zone}
     * @param fixedDelay when set, run this long after start and after each run ends, instead of the cron
     * @param zone       time zone of the cron and of "today" (partition ages)
     */
    public record Tiering(@DefaultValue("true") boolean enabled, @DefaultValue("0 15 0 * * *") String cron, Duration fixedDelay,
                          @DefaultValue("UTC") ZoneId zone) {
        public Tiering {
            PropertyChecks.present("tick.hdb.tiering.zone", zone);
        }
    }

    /**
     * Defaults of the compression study ({@code tick.hdb.study.*}).
     *
     * @param runs    measured runs per write and query (best / median)
     * @param cold    also time queries after dropping the files from the page cache (where the OS allows)
     * @param workDir where the study writes its copies; empty = a temporary directory next to the root
     */
    public record Study(@DefaultValue("3") int runs, @DefaultValue("true") boolean cold, Path workDir) {
        public Study {
            PropertyChecks.range("tick.hdb.study.runs", runs, 1, 100);
        }
    }

    /** The tier policy; a bad tier stops start-up naming {@code tick.hdb.tiers}. */
    public TierPolicy tierPolicy() {
        if (tiers.isEmpty()) {
            return objectStore.enabled() ? TierPolicy.defaultsWithObjectStore() : TierPolicy.defaults();
        }
        final List<Map<String, Object>> config = new ArrayList<>();
        for (final Tier t : tiers) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", t.name());
            m.put("maxAgeDays", t.maxAgeDays());
            m.put("encoding", t.encoding());
            m.put("types", t.types());
            m.put("columns", t.columns());
            m.put("objectStore", t.objectStore());
            config.add(m);
        }
        try {
            final TierPolicy p = TierPolicy.fromConfig(config);
            if (p.usesObjectStore() && !objectStore.enabled()) {
                throw new IllegalArgumentException("a tier is in the object store but tick.hdb.object-store.enabled is false");
            }
            return p;
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("bad tier policy [key=tick.hdb.tiers]: " + e.getMessage(), e);
        }
    }

    /** Block size in bytes, checked. */
    public int blockBytesInt() {
        final long b = blockBytes.toBytes();
        if (b < 64 || b > (1 << 26) || Long.bitCount(b) != 1) {
            throw new IllegalArgumentException("block bytes must be a power of two in 64B..64MB [key=tick.hdb.block-bytes, value="
                + blockBytes + "]");
        }
        return (int) b;
    }

    /** The cron, checked; null when the fixed delay is used or tiering is off. */
    public CronExpression tieringCron() {
        if (!tiering.enabled() || tiering.fixedDelay() != null) {
            return null;
        }
        try {
            return CronExpression.parse(tiering.cron());
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("bad cron [key=tick.hdb.tiering.cron, value=" + tiering.cron() + "]: " + e.getMessage(), e);
        }
    }
}
