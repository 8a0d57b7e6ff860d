package io.jtick.rdb;

import io.jtick.core.rdb.HdbWriteDown;
import io.jtick.core.hdb.ops.PartitionArchive;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;

/**
 * Sends what end of day wrote to an HDB that shares no directory with this RDB (Kubernetes: each
 * has its own volume): the day's tables streamed as one zip ({@link PartitionArchive}) to
 * {@code PUT <url>/api/partitions/<date>}, with the API token when one is configured. The request
 * says {@code Expect: 100-continue} and the HDB answers it only once it reads the body, so a refusal
 * (no or wrong token) comes back before the day is sent. The HDB verifies, installs and reloads
 * before it answers; then the local copy is deleted. A connection error, a timeout or a non-2xx
 * answer throws, so the end of day counts as failed and the RDB keeps its rows (and the local copy).
 *
 * <p>{@link HttpURLConnection} rather than {@code java.net.http.HttpClient}: Java 17's client waits
 * for ever when a final answer comes instead of {@code 100 Continue}.
 */
final class HdbPartitionUploader implements HdbWriteDown.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(HdbPartitionUploader.class);

    private final URI base;
    private final Duration timeout;
    private final String token;
    private final javax.net.ssl.SSLContext tls;

    /** @param tls the TLS context of an {@code https://} HDB, or null for the JDK's */
    HdbPartitionUploader(final URI baseUrl, final Duration timeout, final String token, final javax.net.ssl.SSLContext tls) {
        this.tls = tls;
        final String b = baseUrl.toString();
        this.base = URI.create(b.endsWith("/") ? b : b + "/");
        this.timeout = timeout;
        this.token = token;
    }

    /** Where a day goes. */
    URI uri(final LocalDate date) {
        return base.resolve("api/partitions/" + date);
    }

    @Override
    public void onWritten(final PartitionWriter.Written written) throws IOException {
        final URI uri = uri(written.date());
        final String at = "[url=" + uri + ", date=" + written.date() + "]";
        final List<String> tables = written.tables().stream().map(PartitionWriter.TableWritten::table).toList();
        final long start = System.nanoTime();
        final HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        if (tls != null && c instanceof javax.net.ssl.HttpsURLConnection https) {
            https.setSSLSocketFactory(tls.getSocketFactory());
        }
        try {
            c.setRequestMethod("PUT");
            c.setDoOutput(true);
            c.setChunkedStreamingMode(1 << 16);
            c.setConnectTimeout((int) timeout.toMillis());
            c.setReadTimeout((int) timeout.toMillis());
            c.setRequestProperty("Content-Type", "application/zip");
            c.setRequestProperty("Expect", "100-continue");
            if (token != null) {
                c.setRequestProperty("Authorization", "Bearer " + token);
            }
            IOException sending = null;
            long bytes = 0;
            try (InputStream day = PartitionArchive.stream(written.directory(), tables); OutputStream out = c.getOutputStream()) {
                bytes = day.transferTo(out);
            } catch (final IOException e) {
                sending = e;
            }
            final int status;
            try {
                status = c.getResponseCode();
            } catch (final IOException e) {
                if (sending != null) {
                    e.addSuppressed(sending);
                }
                throw new IOException("sending the partition to the HDB failed " + at + ": " + e, e);
            }
            if (status / 100 != 2 || sending != null) {
                throw new IOException("HDB refused the partition " + at.replace("]", ", status=" + status + "]") + ": " + reason(c, status),
                    sending);
            }
            LOG.info("partition sent to the HDB [url={}, date={}, tables={}, bytes={}, millis={}]: {}", uri, written.date(), tables, bytes,
                (System.nanoTime() - start) / 1_000_000, body(c.getInputStream()));
        } finally {
            c.disconnect();
        }
        deleteLocalCopy(written.directory(), tables);
    }

    /** The HDB's error message; a refusal before the body was sent carries none, so its status says it. */
    private static String reason(final HttpURLConnection c, final int status) throws IOException {
        final String body = body(c.getErrorStream());
        if (!body.isEmpty()) {
            return body.length() > 500 ? body.substring(0, 500) + "..." : body;
        }
        return switch (status) {
            case 401 -> "the HDB wants the API token this RDB does not have or has wrong (tick.api.token must be the HDB's)";
            case 403 -> "the HDB has no API token configured (tick.api.token), so it takes no partition";
            default -> "(no message)";
        };
    }

    /** The HDB has the day: the local tables go, and the date directory when nothing else is left in it. */
    private static void deleteLocalCopy(final Path dateDir, final List<String> tables) {
        try {
            for (final String t : tables) {
                PartitionStore.deleteRecursively(dateDir.resolve(t));
            }
            try (Stream<Path> left = Files.list(dateDir)) {
                if (left.findAny().isEmpty()) {
                    Files.deleteIfExists(dateDir);
                }
            }
        } catch (final IOException e) {
            LOG.warn("the HDB has the day but its local copy could not be deleted [dir={}]", dateDir, e);
        }
    }

    private static String body(final InputStream in) throws IOException {
        if (in == null) {
            return "";
        }
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
