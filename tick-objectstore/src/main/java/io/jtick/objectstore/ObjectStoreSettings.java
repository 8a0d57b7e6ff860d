package io.jtick.objectstore;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where the cold tier lives and how it is read ({@code tick.hdb.object-store.*}).
 *
 * @param endpoint       the S3 API's URL ({@code http://127.0.0.1:9000} for an S3-compatible server); null: AWS's for the region
 * @param bucket         the bucket (created beforehand; jtick never creates or deletes buckets)
 * @param prefix         key prefix of everything jtick writes, e.g. {@code jtick/hdb}; empty: the bucket's root
 * @param region         the region the requests are signed for ({@code us-east-1} for most S3-compatible servers)
 * @param pathStyle      {@code http://host/bucket/key} rather than {@code http://bucket.host/key} (S3-compatible servers)
 * @param accessKey      the access key; null: the SDK's default provider chain (the environment's {@code AWS_ACCESS_KEY_ID}
 *                       and {@code AWS_SECRET_ACCESS_KEY}, a Kubernetes Secret mounted as those, a profile, an instance role)
 * @param secretKey      the secret key, with {@code accessKey}
 * @param cacheBytes     bytes of fetched object ranges kept in memory (least recently used evicted first); 0: none
 * @param blockBytes     the cache's unit: reads fetch whole aligned blocks of this size (coalesced into one ranged GET each run)
 * @param partBytes      an object larger than this is uploaded in parts of this size (S3's multipart upload; AWS wants >= 5MB)
 * @param connectTimeout TCP connect timeout of each request
 * @param readTimeout    most time a request may wait for the next bytes of its response (a stalled GET fails after it)
 * @param requestTimeout most time one request attempt may take in all (a slow GET fails after it)
 * @param callTimeout    most time a call may take with its retries
 * @param maxAttempts    attempts per call (1: no retry)
 * @param diskCacheDir   the folder of the disk tier under the memory cache (one file per block; survives restarts); null: none
 * @param diskCacheBytes bytes of block files kept in {@code diskCacheDir} (least recently used deleted first); 0: no disk tier
 */
public record ObjectStoreSettings(URI endpoint, String bucket, String prefix, String region, boolean pathStyle, String accessKey,
                                  String secretKey, long cacheBytes, int blockBytes, long partBytes, Duration connectTimeout,
                                  Duration readTimeout, Duration requestTimeout, Duration callTimeout, int maxAttempts,
                                  Path diskCacheDir, long diskCacheBytes) {
    public ObjectStoreSettings {
        Objects.requireNonNull(bucket, "bucket");
        prefix = normalize(prefix);
        region = region == null || region.isBlank() ? "us-east-1" : region;
        accessKey = accessKey == null || accessKey.isBlank() ? null : accessKey;
        secretKey = secretKey == null || secretKey.isBlank() ? null : secretKey;
    }

    /** Checks every field; throws naming the key at fault. */
    public ObjectStoreSettings validate() {
        if (bucket.isBlank()) {
            throw new IllegalArgumentException("the bucket is required [key=tick.hdb.object-store.bucket]");
        }
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("set both the access key and the secret key, or neither (the default provider chain)"
                + " [key=tick.hdb.object-store.access-key, secret-key]");
        }
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("cache size must be >= 0 [key=tick.hdb.object-store.cache-size, value=" + cacheBytes + "]");
        }
        if (diskCacheBytes < 0 || diskCacheBytes > 0 && diskCacheBytes < blockBytes) {
            throw new IllegalArgumentException("disk cache size must be 0 (none) or at least the block size [key="
                + "tick.hdb.object-store.disk-cache-size, value=" + diskCacheBytes + ", block-size=" + blockBytes + "]");
        }
        if (diskCacheBytes > 0 && diskCacheDir == null) {
            throw new IllegalArgumentException("a disk cache needs its folder [key=tick.hdb.object-store.disk-cache-dir]");
        }
        if (blockBytes < 4096 || blockBytes > (64 << 20) || Integer.bitCount(blockBytes) != 1) {
            throw new IllegalArgumentException("cache block size must be a power of two in 4KB..64MB [key=tick.hdb.object-store.block-size,"
                + " value=" + blockBytes + "]");
        }
        if (partBytes < 4096 || partBytes > (5L << 30)) {
            throw new IllegalArgumentException("part size must be in 4KB..5GB (AWS S3: >= 5MB) [key=tick.hdb.object-store.part-size,"
                + " value=" + partBytes + "]");
        }
        for (final Duration d : List.of(connectTimeout, readTimeout, requestTimeout, callTimeout)) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("timeouts must be > 0 [key=tick.hdb.object-store.connect-timeout, read-timeout,"
                    + " request-timeout, call-timeout, value=" + d + "]");
            }
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("max attempts must be >= 1 [key=tick.hdb.object-store.max-attempts]");
        }
        return this;
    }

    /** Settings for an S3-compatible server at {@code endpoint} with static keys and the defaults of the rest. */
    public static ObjectStoreSettings of(final URI endpoint, final String bucket, final String prefix, final String accessKey,
                                         final String secretKey) {
        return new ObjectStoreSettings(endpoint, bucket, prefix, "us-east-1", true, accessKey, secretKey, 256L << 20, 256 << 10,
            64L << 20, Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), 3, null, 0);
    }

    /** A copy with another cache size. */
    public ObjectStoreSettings withCache(final long bytes, final int block) {
        return new ObjectStoreSettings(endpoint, bucket, prefix, region, pathStyle, accessKey, secretKey, bytes, block, partBytes,
            connectTimeout, readTimeout, requestTimeout, callTimeout, maxAttempts, diskCacheDir, diskCacheBytes);
    }

    /** A copy with a disk tier of {@code bytes} in {@code dir} (0: none). */
    public ObjectStoreSettings withDiskCache(final Path dir, final long bytes) {
        return new ObjectStoreSettings(endpoint, bucket, prefix, region, pathStyle, accessKey, secretKey, cacheBytes, blockBytes, partBytes,
            connectTimeout, readTimeout, requestTimeout, callTimeout, maxAttempts, dir, bytes);
    }

    /** A copy with other timeouts and attempts (the read timeout bounded by the request timeout). */
    public ObjectStoreSettings withTimeouts(final Duration request, final Duration call, final int attempts) {
        return withTimeouts(readTimeout.compareTo(request) < 0 ? readTimeout : request, request, call, attempts);
    }

    /** A copy with other timeouts and attempts. */
    public ObjectStoreSettings withTimeouts(final Duration read, final Duration request, final Duration call, final int attempts) {
        return new ObjectStoreSettings(endpoint, bucket, prefix, region, pathStyle, accessKey, secretKey, cacheBytes, blockBytes,
            partBytes, connectTimeout, read, request, call, attempts, diskCacheDir, diskCacheBytes);
    }

    /** A copy with another multipart part size. */
    public ObjectStoreSettings withPartBytes(final long bytes) {
        return new ObjectStoreSettings(endpoint, bucket, prefix, region, pathStyle, accessKey, secretKey, cacheBytes, blockBytes, bytes,
            connectTimeout, readTimeout, requestTimeout, callTimeout, maxAttempts, diskCacheDir, diskCacheBytes);
    }

    /** The store, for messages: {@code s3://bucket/prefix at endpoint}. */
    public String describe() {
        return "s3://" + bucket + "/" + prefix + (endpoint == null ? " (AWS " + region + ")" : " at " + endpoint);
    }

    private static String normalize(final String p) {
        if (p == null || p.isBlank()) {
            return "";
        }
        String s = p.trim();
        while (s.startsWith("/")) {
            s = s.substring(1);
        }
        return s.isEmpty() || s.endsWith("/") ? s : s + "/";
    }
}
