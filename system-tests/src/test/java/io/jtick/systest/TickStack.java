package io.jtick.systest;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.sql.kdb.QTextCall;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.hdb.HdbApplication;
import io.jtick.rdb.RdbApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The services the system tests run, really started on loopback: a tickerplant (journal under
 * {@code dir}, end of day only when a test asks: the clock's own is 12 hours away), the hdb-service
 * app over {@code dir/hdb}, the rdb-service app subscribed and writing its end of day there, and a
 * feed connected to the TP. Plus the HTTP helpers the tests share.
 */
record TickStack(Path journal, Path hdbRoot, TickerplantServer tp, ConfigurableApplicationContext hdb, int hdbPort,
                 ConfigurableApplicationContext rdb, int rdbPort, FeedPublisher feed) {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    static final TableSchema TRADE = SCHEMAS.get("trade");
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Starts everything, each part tracked by {@code closer}, and waits for the RDB's subscription. */
    static TickStack start(final Path dir, final Closer closer) throws Exception {
        return start(dir, closer, Map.of(), Map.of());
    }

    /**
     * As {@link #start(Path, Closer)}, with settings of the HDB app and of the RDB app replaced or
     * added ({@code key → value}, e.g. {@code tick.rdb.hdb.transfer → upload}).
     */
    static TickStack start(final Path dir, final Closer closer, final Map<String, String> hdbSettings,
                           final Map<String, String> rdbSettings) throws Exception {
        return start(dir, closer, hdbSettings, rdbSettings, SCHEMAS, KdbSettings.OFF);
    }

    /** As above, with the tickerplant's tables and its kdb+ port given. */
    static TickStack start(final Path dir, final Closer closer, final Map<String, String> hdbSettings,
                           final Map<String, String> rdbSettings, final SchemaRegistry schemas, final KdbSettings kdb) throws Exception {
        final Path journal = dir.resolve("journal");
        final Path hdbRoot = Files.createDirectories(dir.resolve("hdb"));
        final TickerplantSettings settings = TickerplantSettings.defaults(journal).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC);
        final TickerplantServer tp = closer.track(new TickerplantServer(settings, schemas, NanoClock.SYSTEM, new TickMetrics()).kdb(kdb)
            .kdbText(new QTextCall())
            .start());
        final Map<String, String> hdbArgs = new LinkedHashMap<>();
        hdbArgs.put("tick.hdb.root", hdbRoot.toString());
        hdbArgs.put("tick.hdb.tiering.enabled", "false");
        hdbArgs.putAll(hdbSettings);
        final ConfigurableApplicationContext hdb = closer.track(app(HdbApplication.class, "hdb-service", args(hdbArgs)));
        final int hdbPort = port(hdb);
        final Map<String, String> rdbArgs = new LinkedHashMap<>();
        rdbArgs.put("tick.rdb.tp-port", Integer.toString(tp.port()));
        rdbArgs.put("tick.rdb.reconnect-delay", "100ms");
        rdbArgs.put("tick.rdb.hdb.root", hdbRoot.toString());
        rdbArgs.put("tick.rdb.hdb.url", "http://127.0.0.1:" + hdbPort);
        rdbArgs.put("tick.rdb.journal-root", journal.toString());
        rdbArgs.put("tick.rdb.hdb.retry-interval", "500ms");
        rdbArgs.putAll(rdbSettings);
        final ConfigurableApplicationContext rdb = closer.track(app(RdbApplication.class, "rdb-service", args(rdbArgs)));
        final int rdbPort = port(rdb);
        await("RDB subscribed", WAIT, () -> get(rdbPort, "/api/status").get("subscribed").asBoolean());
        final FeedPublisher feed = closer.track(new FeedPublisher("127.0.0.1", tp.port(), "feed", null).connect(5000));
        return new TickStack(journal, hdbRoot, tp, hdb, hdbPort, rdb, rdbPort, feed);
    }

    /** A Spring Boot service on a random loopback port (unless {@code args} name one with {@code --server.port=}). */
    static ConfigurableApplicationContext app(final Class<?> main, final String name, final String... args) {
        final List<String> all = new ArrayList<>(List.of("--spring.config.name=jtick-system-test",
            "--server.address=127.0.0.1", "--spring.application.name=" + name,
            "--management.endpoints.web.exposure.include=health,prometheus",
            // an HDB's replay port on any free port (other apps ignore the key); a test that needs it asks /api/status
            "--tick.hdb.replay-port=0",
            // and the PostgreSQL and kdb+ query ports
            "--tick.rdb.pg-port=0", "--tick.hdb.pg-port=0", "--tick.rdb.kdb-port=0", "--tick.hdb.kdb-port=0",
            // no start-up query warm-up: many services start in this one JVM (QueryWarmUpTest covers it)
            "--tick.query.warm-up=false"));
        if (List.of(args).stream().noneMatch(a -> a.startsWith("--server.port="))) {
            all.add("--server.port=0");
        }
        all.addAll(List.of(args));
        return new SpringApplicationBuilder(main).run(all.toArray(new String[0]));
    }

    private static String[] args(final Map<String, String> settings) {
        return settings.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    static int port(final ConfigurableApplicationContext ctx) {
        return Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
    }

    static HttpResponse<String> call(final int port, final String method, final String path, final String body) throws Exception {
        return call(port, method, path, body, "application/json");
    }

    static HttpResponse<String> call(final int port, final String method, final String path, final String body, final String accept)
        throws Exception {
        return call(port, method, path, body, accept, null);
    }

    /** A call presenting the API token {@code token} (null: none) as {@code Authorization: Bearer}. */
    static HttpResponse<String> call(final int port, final String method, final String path, final String body, final String accept,
                                     final String token) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json").header("Accept", accept).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A 200 answer's JSON (anything else fails the test). */
    static JsonNode ok(final int port, final String method, final String path, final String body) {
        return ok(port, method, path, body, null);
    }

    /** A 200 answer's JSON to a call presenting {@code token} (null: none). */
    static JsonNode ok(final int port, final String method, final String path, final String body, final String token) {
        try {
            final HttpResponse<String> r = call(port, method, path, body, "application/json", token);
            assertThat(r.statusCode()).as(method + " " + path + " " + body + " -> " + r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    static JsonNode get(final int port, final String path) {
        return ok(port, "GET", path, null);
    }

    /** Rows of the RDB's trade table. */
    long rdbTradeRows() {
        return get(rdbPort, "/api/status").path("tables").path("trade").asLong(0);
    }
}
