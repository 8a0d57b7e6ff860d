package io.jtick.objectstore;

import io.jtick.core.hdb.format.PartitionUnavailableException;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.read.ColdStore;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.parquet.ParquetFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cold tier in an S3-compatible bucket (AWS SDK for Java v2 over the JDK's HTTP client).
 *
 * <p>Layout under the prefix: the data of a partition is one Parquet file at a Hive-style key,
 * {@code <table>/date=<yyyy-MM-dd>/<table>.parquet}, which Spark, Trino and DuckDB read as it is; its
 * manifest, {@code _manifests/<date>/<table>.json} ({@link Manifest}), publishes it. Publishing:
 * the Parquet file (the table's own when it is already Parquet in that compression, else written
 * into a staging directory under the root) is uploaded with its {@code Content-MD5}, checked by a
 * HEAD (size, and the ETag against the MD5), and only then is the manifest written. Deleting: the
 * manifest first, then the data.
 *
 * <p>Reading: {@link #open} reads the manifest and the Parquet footer; the table's reads fetch the
 * blocks they touch with ranged GETs through the {@link RangeCache} (memory, and the {@link DiskBlockCache}
 * under it). Any failed request is counted by reason ({@code tick.hdb.cold.errors|reason=...}) and
 * thrown as a {@link PartitionUnavailableException} naming the partition and the store; nothing is
 * retried beyond the SDK's attempts, and the next read simply tries again.
 */
public final class S3ColdStore implements ColdStore {
    private static final Logger LOG = LoggerFactory.getLogger(S3ColdStore.class);

    /** Manifests live under this folder of the prefix (a leading underscore: Spark, Trino and Hive skip it). */
    static final String MANIFESTS = "_manifests/";

    private static final List<String> REASONS = List.of("unreachable", "timeout", "denied", "missing", "error");

    private final ObjectStoreSettings settings;
    private final SdkHttpClient http;
    private final S3Client s3;
    private final RangeCache cache;
    private final Map<String, AtomicLong> errors;
    private final AtomicLong gets;
    private final AtomicLong fetchedBytes;
    private final AtomicLong uploadedBytes;

    public S3ColdStore(final ObjectStoreSettings settings, final TickMetrics metrics) {
        this.settings = settings.validate();
        final DiskBlockCache disk = settings.diskCacheBytes() > 0 ? disk(settings, metrics) : null;   // first: it may refuse
        this.http = new AbortOnFailureHttpClient(UrlConnectionHttpClient.builder().connectionTimeout(settings.connectTimeout())
            .socketTimeout(settings.readTimeout()).build());
        this.s3 = client(settings, http);
        this.cache = settings.cacheBytes() > 0 || disk != null ? new RangeCache(settings.cacheBytes(), disk, metrics) : null;
        final Map<String, AtomicLong> e = new java.util.LinkedHashMap<>();
        for (final String r : REASONS) {
            e.put(r, metrics.counter("tick.hdb.cold.errors|reason=" + r));
        }
        this.errors = Map.copyOf(e);
        this.gets = metrics.counter("tick.hdb.cold.gets");
        this.fetchedBytes = metrics.counter("tick.hdb.cold.fetched.bytes");
        this.uploadedBytes = metrics.counter("tick.hdb.cold.uploaded.bytes");
    }

    private static DiskBlockCache disk(final ObjectStoreSettings s, final TickMetrics metrics) {
        try {
            return new DiskBlockCache(s.diskCacheDir(), s.diskCacheBytes(), metrics);
        } catch (final IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot open the cold tier's disk cache; make the folder writable, name another, or set"
                + " the size to 0 [key=tick.hdb.object-store.disk-cache-dir, value=" + s.diskCacheDir() + "]: " + e, e);
        }
    }

    /**
     * Drops {@code Expect: 100-continue} from uploads: the JDK's HttpURLConnection waits for the 100
     * and some S3-compatible servers never send it, so the PUT would hang until its timeout.
     */
    private static final ExecutionInterceptor NO_EXPECT_CONTINUE = new ExecutionInterceptor() {
        @Override
        public SdkHttpRequest modifyHttpRequest(final Context.ModifyHttpRequest context, final ExecutionAttributes attributes) {
            return context.httpRequest().toBuilder().removeHeader("Expect").build();
        }
    };

    private static S3Client client(final ObjectStoreSettings s, final SdkHttpClient http) {
        final AwsCredentialsProvider credentials = s.accessKey() != null
            ? StaticCredentialsProvider.create(AwsBasicCredentials.create(s.accessKey(), s.secretKey()))
            : DefaultCredentialsProvider.builder().build();
        final S3ClientBuilder b = S3Client.builder()
            .httpClient(http)   // given, not built by the SDK: closed by close()
            .region(Region.of(s.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(s.pathStyle())
            // S3-compatible servers do not all take the SDK's default trailing checksums; uploads carry Content-MD5
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(o -> o.apiCallAttemptTimeout(s.requestTimeout()).apiCallTimeout(s.callTimeout())
                .addExecutionInterceptor(NO_EXPECT_CONTINUE)
                .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(s.maxAttempts()).build()));
        if (s.endpoint() != null) {
            b.endpointOverride(s.endpoint());
        }
        return b.build();
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    ObjectStoreSettings settings() {
        return settings;
    }

    RangeCache cache() {
        return cache;
    }

    int blockBytes() {
        return settings.blockBytes();
    }

    /** The data object's key of a partition. */
    String dataKey(final LocalDate date, final String table) {
        return settings.prefix() + table + "/date=" + date + "/" + ParquetFormat.fileName(table);
    }

    /** The manifest's key of a partition. */
    String manifestKey(final LocalDate date, final String table) {
        return settings.prefix() + MANIFESTS + date + "/" + table + ".json";
    }

    @Override
    public List<ColdPartition> list() throws IOException {
        final String prefix = settings.prefix() + MANIFESTS;
        final List<ColdPartition> out = new ArrayList<>();
        try {
            String token = null;
            do {
                final ListObjectsV2Response r = s3.listObjectsV2(ListObjectsV2Request.builder().bucket(settings.bucket()).prefix(prefix)
                    .continuationToken(token).build());
                for (final S3Object o : r.contents()) {
                    final String rest = o.key().substring(prefix.length());
                    final int slash = rest.indexOf('/');
                    if (slash < 0 || !rest.endsWith(".json")) {
                        continue;
                    }
                    try {
                        out.add(new ColdPartition(LocalDate.parse(rest.substring(0, slash)), rest.substring(slash + 1, rest.length() - 5),
                            o.eTag()));
                    } catch (final RuntimeException e) {
                        LOG.warn("skipping an object that is not a manifest [key={}]", o.key());
                    }
                }
                token = Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null;
            } while (token != null);
        } catch (final RuntimeException e) {
            throw failure(null, null, "list the manifests [prefix=" + prefix + "]", e);
        }
        return out;
    }

    @Override
    public StoredTable open(final ColdPartition partition, final Path directory) throws IOException {
        final Manifest m = readManifest(partition.date(), partition.table());
        if (m == null) {
            throw unavailable(partition.date(), partition.table(), "missing", "no manifest [key=" + manifestKey(partition.date(),
                partition.table()) + "]", null);
        }
        final StoredTable t = ParquetFormat.open(directory, Path.of("s3://" + settings.bucket() + "/" + m.key()),
            new ObjectInputFile(this, m), () -> { }, FORMAT_PREFIX);
        if (!t.date().equals(partition.date()) || !t.name().equals(partition.table())) {
            t.close();
            throw new IOException("a manifest names another partition's data [manifest=" + manifestKey(partition.date(), partition.table())
                + ", data date=" + t.date() + ", table=" + t.name() + "]");
        }
        return t;
    }

    /** The manifest of a partition, or null when none is published. */
    Manifest readManifest(final LocalDate date, final String table) throws IOException {
        final String key = manifestKey(date, table);
        try {
            final ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(g -> g.bucket(settings.bucket()).key(key));
            return Manifest.parse(r.asUtf8String());
        } catch (final S3Exception e) {
            if (e.statusCode() == 404) {
                return null;
            }
            throw failure(date, table, "read the manifest [key=" + key + "]", e);
        } catch (final IllegalArgumentException e) {
            throw new IOException("unreadable manifest [key=" + key + "]: " + e.getMessage(), e);
        } catch (final RuntimeException e) {
            throw failure(date, table, "read the manifest [key=" + key + "]", e);
        }
    }

    /** Bytes {@code [from, to]} of a data object: one ranged GET. */
    byte[] get(final Manifest m, final long from, final long to) {
        try {
            final ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(g -> g.bucket(settings.bucket()).key(m.key())
                .range("bytes=" + from + "-" + to).ifMatch(m.etag()));
            final byte[] b = r.asByteArrayUnsafe();
            gets.incrementAndGet();
            fetchedBytes.addAndGet(b.length);
            if (b.length != to - from + 1) {
                throw new IllegalStateException("short ranged GET [key=" + m.key() + ", range=" + from + "-" + to + ", got=" + b.length
                    + "]");
            }
            return b;
        } catch (final RuntimeException e) {
            final String reason = reason(e);
            errors.get(reason).incrementAndGet();
            throw unavailable(m.date(), m.table(), reason, "GET " + m.key() + " bytes " + from + "-" + to + ": " + message(e), e);
        }
    }

    @Override
    public ColdPartition publish(final StoredTable table, final String format) throws IOException {
        final LocalDate date = table.date();
        final String name = table.name();
        final String dataKey = dataKey(date, name);
        final Manifest existing = readManifest(date, name);
        if (existing != null && existing.key().equals(dataKey) && existing.rows() == table.rowCount() && verified(existing)) {
            LOG.info("cold partition already published, upload checked [date={}, table={}, key={}]", date, name, dataKey);
            return new ColdPartition(date, name, manifestETag(date, name));
        }
        final Path own = ParquetFormat.fileOf(table);
        if (own != null && table.format().equals(format)) {
            return upload(table, format, own, dataKey);
        }
        final Path root = table.directory().getParent().getParent();
        try (PartitionStore.Staging stage = PartitionStore.stage(root, date)) {
            final Path dir = stage.table(name);
            TableFormats.byName(TierPolicy.formatName(format)).write(table, TierPolicy.formatCompression(format), dir);
            return upload(table, format, dir.resolve(ParquetFormat.fileName(name)), dataKey);
        }
    }

    private ColdPartition upload(final StoredTable table, final String format, final Path file, final String dataKey) throws IOException {
        final LocalDate date = table.date();
        final String name = table.name();
        final long size = Files.size(file);
        final byte[] md5 = md5(file);
        final String md5Hex = HexFormat.of().formatHex(md5);
        final String etag;
        final String expected;
        try {
            abortStaleUploads(date, name, dataKey);
            if (size > settings.partBytes()) {
                final String[] tags = multipart(file, size, dataKey);
                etag = tags[0];
                expected = tags[1];
            } else {
                final PutObjectResponse put = s3.putObject(p -> p.bucket(settings.bucket()).key(dataKey).contentLength(size)
                    .contentMD5(Base64.getEncoder().encodeToString(md5)).contentType("application/vnd.apache.parquet"),
                    RequestBody.fromFile(file));
                etag = put.eTag();
                expected = md5Hex;
            }
            uploadedBytes.addAndGet(size);
            final HeadObjectResponse head = s3.headObject(h -> h.bucket(settings.bucket()).key(dataKey));
            if (head.contentLength() != size || !sameContent(head.eTag(), expected)) {
                throw new IOException("upload did not verify [key=" + dataKey + ", size=" + size + ", stored=" + head.contentLength()
                    + ", md5=" + md5Hex + ", etag=" + head.eTag() + "]");
            }
        } catch (final RuntimeException e) {
            throw failure(date, name, "upload [key=" + dataKey + "]", e);
        }
        final Manifest m = new Manifest(date, name, dataKey, size, md5Hex, etag, format, table.rowCount(), Instant.now().toString());
        final String key = manifestKey(date, name);
        try {
            final PutObjectResponse put = s3.putObject(p -> p.bucket(settings.bucket()).key(key).contentType("application/json"),
                RequestBody.fromString(m.toJson(), StandardCharsets.UTF_8));
            LOG.info("cold partition published [date={}, table={}, key={}, bytes={}, store={}]", date, name, dataKey, size, describe());
            return new ColdPartition(date, name, put.eTag());
        } catch (final RuntimeException e) {
            throw failure(date, name, "write the manifest [key=" + key + "]", e);
        }
    }

    /**
     * Uploads a file larger than the part size with S3's multipart upload: parts of {@code partBytes},
     * each with its {@code Content-MD5} and its ETag checked against it; any failure aborts the upload,
     * so the store keeps no orphan parts (and the local copy stays authoritative). Returns the store's
     * ETag and the one expected of these parts ({@code md5(md5(part1)..md5(partN))-N}).
     */
    private String[] multipart(final Path file, final long size, final String dataKey) throws IOException {
        final String id = s3.createMultipartUpload(c -> c.bucket(settings.bucket()).key(dataKey)
            .contentType("application/vnd.apache.parquet")).uploadId();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final MessageDigest ofParts = md5Digest();
            final List<CompletedPart> parts = new ArrayList<>();
            final int partSize = (int) Math.min(settings.partBytes(), Integer.MAX_VALUE - 8);
            final ByteBuffer buf = ByteBuffer.allocate((int) Math.min(partSize, size));
            for (long at = 0; at < size; at += partSize) {
                buf.clear().limit((int) Math.min(partSize, size - at));
                while (buf.hasRemaining()) {
                    if (ch.read(buf, at + buf.position()) < 0) {
                        throw new IOException("file shrank while uploading [file=" + file + ", at=" + (at + buf.position()) + "]");
                    }
                }
                final byte[] bytes = Arrays.copyOf(buf.array(), buf.limit());
                final byte[] md5 = md5Digest().digest(bytes);
                ofParts.update(md5);
                final int number = parts.size() + 1;
                final UploadPartResponse r = s3.uploadPart(u -> u.bucket(settings.bucket()).key(dataKey).uploadId(id).partNumber(number)
                    .contentLength((long) bytes.length).contentMD5(Base64.getEncoder().encodeToString(md5)), RequestBody.fromBytes(bytes));
                if (!sameContent(r.eTag(), HexFormat.of().formatHex(md5))) {
                    throw new IOException("part did not verify [key=" + dataKey + ", part=" + number + ", etag=" + r.eTag() + "]");
                }
                parts.add(CompletedPart.builder().partNumber(number).eTag(r.eTag()).build());
            }
            final CompleteMultipartUploadResponse done = s3.completeMultipartUpload(c -> c.bucket(settings.bucket()).key(dataKey)
                .uploadId(id).multipartUpload(m -> m.parts(parts)));
            return new String[] {done.eTag(), HexFormat.of().formatHex(ofParts.digest()) + "-" + parts.size()};
        } catch (final IOException | RuntimeException e) {
            abort(dataKey, id, e);
            throw e;
        }
    }

    private void abort(final String key, final String id, final Exception cause) {
        try {
            s3.abortMultipartUpload(a -> a.bucket(settings.bucket()).key(key).uploadId(id));
            LOG.warn("multipart upload aborted, its parts deleted [key={}, store={}]: {}", key, describe(), cause.getMessage());
        } catch (final RuntimeException e) {
            // a store that is down: the next move of this partition aborts it (abortStaleUploads)
            cause.addSuppressed(e);
            LOG.warn("multipart upload not aborted, left to the next move [key={}, uploadId={}, store={}]: {}", key, id, describe(),
                e.getMessage());
        }
    }

    /** Aborts uploads of this key a crashed or cut-off move left behind, so their parts do not linger in the bucket. */
    private void abortStaleUploads(final LocalDate date, final String table, final String dataKey) {
        final List<MultipartUpload> stale;
        try {
            stale = pendingUploads(dataKey);
        } catch (final S3Exception e) {
            LOG.debug("cannot list multipart uploads, none aborted [key={}]: {}", dataKey, message(e));
            return;
        }
        for (final MultipartUpload u : stale) {
            if (u.key().equals(dataKey)) {
                s3.abortMultipartUpload(a -> a.bucket(settings.bucket()).key(dataKey).uploadId(u.uploadId()));
                LOG.info("stale multipart upload aborted [date={}, table={}, key={}, started={}]", date, table, dataKey, u.initiated());
            }
        }
    }

    /** Multipart uploads begun and neither completed nor aborted under a key prefix. */
    List<MultipartUpload> pendingUploads(final String keyPrefix) {
        return s3.listMultipartUploads(l -> l.bucket(settings.bucket()).prefix(keyPrefix)).uploads();
    }

    /** True when the data object a manifest names is there with its size and content. */
    private boolean verified(final Manifest m) throws IOException {
        try {
            final HeadObjectResponse head = s3.headObject(h -> h.bucket(settings.bucket()).key(m.key()));
            return head.contentLength() == m.bytes() && sameContent(head.eTag(), m.md5());
        } catch (final S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw failure(m.date(), m.table(), "check [key=" + m.key() + "]", e);
        } catch (final RuntimeException e) {
            throw failure(m.date(), m.table(), "check [key=" + m.key() + "]", e);
        }
    }

    private String manifestETag(final LocalDate date, final String table) throws IOException {
        try {
            return s3.headObject(h -> h.bucket(settings.bucket()).key(manifestKey(date, table))).eTag();
        } catch (final RuntimeException e) {
            throw failure(date, table, "check the manifest", e);
        }
    }

    /**
     * A single-part upload's ETag is its MD5, a multipart one's the MD5 of its parts' MD5s and their
     * count ({@code hex-N}); a store whose ETags are neither (encryption with KMS) is checked by size alone.
     */
    private static boolean sameContent(final String etag, final String expected) {
        final String e = etag == null ? "" : etag.replace("\"", "");
        return !e.matches("[0-9a-fA-F]{32}(-[0-9]+)?") || e.equalsIgnoreCase(expected) || !e.contains("-") && expected.contains("-");
    }

    @Override
    public void delete(final LocalDate date, final String table) throws IOException {
        final String manifest = manifestKey(date, table);
        final Manifest m = readManifest(date, table);
        try {
            s3.deleteObject(d -> d.bucket(settings.bucket()).key(manifest));
            s3.deleteObject(d -> d.bucket(settings.bucket()).key(m != null ? m.key() : dataKey(date, table)));
            LOG.info("cold partition deleted [date={}, table={}, store={}]", date, table, describe());
        } catch (final RuntimeException e) {
            throw failure(date, table, "delete", e);
        }
    }

    private static MessageDigest md5Digest() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] md5(final Path file) throws IOException {
        final MessageDigest md = md5Digest();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return md.digest();
    }

    /** Counts a failed request and wraps it, naming what was done, the partition and the store. */
    private IOException failure(final LocalDate date, final String table, final String what, final RuntimeException e) {
        final String reason = reason(e);
        errors.get(reason).incrementAndGet();
        return new IOException("cold tier: cannot " + what + " [date=" + date + ", table=" + table + ", store=" + describe() + ", reason="
            + reason + "]: " + message(e), unavailable(date, table, reason, message(e), e));
    }

    private PartitionUnavailableException unavailable(final LocalDate date, final String table, final String reason, final String detail,
                                                      final Throwable cause) {
        return new PartitionUnavailableException(date, table, describe(), reason, detail, cause);
    }

    /** {@code unreachable}, {@code timeout}, {@code denied}, {@code missing} or {@code error}. */
    static String reason(final Throwable e) {
        if (e instanceof S3Exception s) {
            final int status = s.statusCode();
            return status == 404 || status == 412 ? "missing" : status == 401 || status == 403 ? "denied" : "error";
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof ApiCallTimeoutException || c instanceof ApiCallAttemptTimeoutException
                || c instanceof SocketTimeoutException) {
                return "timeout";
            }
            if (c instanceof ConnectException || c instanceof UnknownHostException || c instanceof NoRouteToHostException
                || c instanceof java.net.SocketException) {
                return "unreachable";
            }
        }
        return "error";
    }

    private static String message(final Throwable e) {
        if (e instanceof S3Exception s && s.awsErrorDetails() != null) {
            return s.statusCode() + " " + s.awsErrorDetails().errorCode() + ": " + s.awsErrorDetails().errorMessage();
        }
        return e.getMessage();
    }

    @Override
    public void close() {
        try {
            s3.close();
        } finally {
            http.close();
        }
    }
}
