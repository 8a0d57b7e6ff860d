package io.jtick.rdb;

import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.HdbWriteDown;
import io.jtick.core.tls.LazyHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Tells the HDB service to load what end of day wrote: {@code POST <url>/api/reload}, with the API
 * token when one is configured (the HDB asks for it once it listens off loopback). A connection
 * error, a timeout or a non-2xx answer throws, so the end of day counts as failed and the RDB keeps
 * its data (the partition is on disk by then; the HDB loads it at its next reload or start).
 */
final class HdbReloadNotifier implements HdbWriteDown.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(HdbReloadNotifier.class);

    private final URI reload;
    private final Duration timeout;
    private final LazyHttpClient http;
    private final String token;

    HdbReloadNotifier(final URI baseUrl, final Duration timeout, final String token, final javax.net.ssl.SSLContext tls) {
        this.token = token;
        final String base = baseUrl.toString();
        this.reload = URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/api/reload");
        this.timeout = timeout;
        this.http = new LazyHttpClient(timeout, null, tls);
    }

    URI uri() {
        return reload;
    }

    @Override
    public void onWritten(final PartitionWriter.Written written) throws IOException, InterruptedException {
        final HttpRequest.Builder b = HttpRequest.newBuilder(reload).timeout(timeout).POST(HttpRequest.BodyPublishers.noBody());
        final HttpRequest request = (token == null ? b : b.header("Authorization", "Bearer " + token)).build();
        final HttpResponse<String> response;
        try {
            response = http.get().send(request, HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new IOException("HDB reload failed [url=" + reload + ", date=" + written.date() + "]: " + e, e);
        }
        if (response.statusCode() / 100 != 2) {
            final String body = response.body();
            throw new IOException("HDB reload failed [url=" + reload + ", date=" + written.date() + ", status=" + response.statusCode()
                + "]: " + (body.length() > 500 ? body.substring(0, 500) + "..." : body));
        }
        LOG.info("HDB reloaded [url={}, date={}]: {}", reload, written.date(), response.body());
    }
}
