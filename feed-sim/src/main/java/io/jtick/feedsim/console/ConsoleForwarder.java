package io.jtick.feedsim.console;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tls.LazyHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The console's pass-through to tp-service, rdb-service and hdb-service: only their documented read endpoints
 * ({@link #READS}), query endpoints ({@link #QUERIES}) and the HDB's compression study ({@link #STUDY}), each forwarded
 * with the caller's API token ({@code Authorization} or {@code X-Api-Token}) so the service decides as it would for a
 * direct call. Nothing else that changes state passes. Counts every call forwarded, every one refused (not a forwarded
 * endpoint) and every one that failed (the service did not answer in {@code tick.console.timeout}).
 */
public final class ConsoleForwarder {
    /** service → console resource → the service's documented path (GET). */
    static final Map<String, Map<String, String>> READS = Map.of(
        "tp", Map.of("status", "/api/status", "cluster", "/api/cluster", "health", "/actuator/health"),
        "rdb", Map.of("status", "/api/status", "tables", "/api/tables", "health", "/actuator/health"),
        "hdb", Map.of("status", "/api/status", "partitions", "/api/partitions", "replays", "/api/replays",
            "import", "/api/import", "health", "/actuator/health"));
    /** query target → service and its documented query path (POST). */
    static final Map<String, List<String>> QUERIES = Map.of(
        "rdb", List.of("rdb", "/api/query"), "hdb", List.of("hdb", "/api/query"), "gateway", List.of("hdb", "/api/gateway/query"));
    /** SQL target → service and its documented SQL path (POST, the SELECT as text/plain). */
    static final Map<String, List<String>> SQL = Map.of(
        "rdb", List.of("rdb", "/api/sql"), "hdb", List.of("hdb", "/api/sql"), "gateway", List.of("hdb", "/api/gateway/sql"));
    /** The one study forwarded: hdb-service's compression study (it writes only scratch copies of a partition). */
    static final String STUDY = "/api/compression-study";
    /** Largest query document forwarded. */
    static final int MAX_QUERY_BYTES = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleForwarder.class);

    private final ConsoleProperties properties;
    private final LazyHttpClient http;
    private final AtomicLong forwarded;
    private final AtomicLong refused;
    private final AtomicLong failed;

    /** @param tls the TLS context for {@code https://} services, or null for the JDK's */
    ConsoleForwarder(final ConsoleProperties properties, final TickMetrics metrics, final javax.net.ssl.SSLContext tls) {
        this.properties = properties;
        this.http = new LazyHttpClient(properties.timeout(), HttpClient.Version.HTTP_1_1, tls);
        this.forwarded = metrics.counter("tick.console.forwarded");
        this.refused = metrics.counter("tick.console.forward.refused");
        this.failed = metrics.counter("tick.console.forward.failed");
    }

    /** A service's answer, passed on as it came: status, content type, body (streamed, the caller closes it). */
    record Answer(int status, String contentType, InputStream body) {
    }

    /** {@code GET} of {@code service}'s documented {@code resource}; 404 naming what is forwarded for anything else. */
    Answer read(final String service, final String resource, final String authorization, final String apiToken) {
        final Map<String, String> paths = READS.get(service);
        if (paths == null) {
            throw refuse("no such service [service=" + service + ", known=tp|rdb|hdb]");
        }
        final String path = paths.get(resource);
        if (path == null) {
            throw refuse("the console does not forward this [service=" + service + ", resource=" + resource + ", forwarded="
                + String.join("|", new java.util.TreeSet<>(paths.keySet())) + "]");
        }
        return send(service, HttpRequest.newBuilder(uri(service, path)).GET(), "application/json", authorization, apiToken);
    }

    /** {@code POST} of a query document to {@code target}'s query endpoint (rdb, hdb, gateway). */
    Answer query(final String target, final byte[] body, final String accept, final String authorization, final String apiToken) {
        return post(QUERIES, "application/json", "a JSON document", target, body, accept, authorization, apiToken);
    }

    /** {@code POST} of one SELECT to {@code target}'s SQL endpoint (rdb, hdb, gateway). */
    Answer sql(final String target, final byte[] body, final String accept, final String authorization, final String apiToken) {
        return post(SQL, "text/plain; charset=utf-8", "a SELECT", target, body, accept, authorization, apiToken);
    }

    private Answer post(final Map<String, List<String>> routes, final String contentType, final String what, final String target,
                        final byte[] body, final String accept, final String authorization, final String apiToken) {
        final List<String> to = routes.get(target);
        if (to == null) {
            throw refuse("no such query target [target=" + target + ", known=rdb|hdb|gateway]");
        }
        if (body == null || body.length == 0) {
            throw refuse(HttpStatus.BAD_REQUEST, "a query needs " + what + " as its body [target=" + target + "]");
        }
        if (body.length > MAX_QUERY_BYTES) {
            throw refuse(HttpStatus.CONTENT_TOO_LARGE, "query document too large [bytes=" + body.length + ", max=" + MAX_QUERY_BYTES + "]");
        }
        final String type = accept != null && accept.contains("text/csv") ? "text/csv" : "application/json";
        final HttpRequest.Builder b = HttpRequest.newBuilder(uri(to.get(0), to.get(1)))
            .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        return send(to.get(0), b, type, authorization, apiToken);
    }

    /** {@code POST} of a compression study request to the HDB; it answers when the study is done. */
    Answer compressionStudy(final byte[] body, final String authorization, final String apiToken) {
        if (body != null && body.length > MAX_QUERY_BYTES) {
            throw refuse(HttpStatus.CONTENT_TOO_LARGE, "study request too large [bytes=" + body.length + ", max=" + MAX_QUERY_BYTES + "]");
        }
        final HttpRequest.Builder b = HttpRequest.newBuilder(uri("hdb", STUDY)).header("Content-Type", "application/json")
            .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        return send("hdb", b, "application/json", authorization, apiToken);
    }

    private URI uri(final String service, final String path) {
        return URI.create(properties.baseUrl(service) + path);
    }

    private Answer send(final String service, final HttpRequest.Builder b, final String accept, final String authorization,
                        final String apiToken) {
        b.header("Accept", accept).timeout(properties.timeout());
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (apiToken != null) {
            b.header("X-Api-Token", apiToken);
        }
        final HttpRequest request = b.build();
        try {
            final HttpResponse<InputStream> r = http.get().send(request, HttpResponse.BodyHandlers.ofInputStream());
            forwarded.incrementAndGet();
            return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse("application/json"), r.body());
        } catch (final HttpTimeoutException e) {
            throw fail(HttpStatus.GATEWAY_TIMEOUT, service + " did not answer within " + properties.timeout().toMillis() + " ms [url="
                + request.uri() + "]");
        } catch (final IOException e) {
            throw fail(HttpStatus.BAD_GATEWAY, service + " did not answer [url=" + request.uri() + ", cause=" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "]");
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw fail(HttpStatus.SERVICE_UNAVAILABLE, "interrupted while forwarding [url=" + request.uri() + "]");
        }
    }

    private ApiException refuse(final String message) {
        return refuse(HttpStatus.NOT_FOUND, message);
    }

    private ApiException refuse(final HttpStatus status, final String message) {
        refused.incrementAndGet();
        return new ApiException(status, message);
    }

    private ApiException fail(final HttpStatus status, final String message) {
        failed.incrementAndGet();
        LOG.debug("console pass-through failed: {}", message);
        return new ApiException(status, message);
    }
}
