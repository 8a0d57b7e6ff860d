package io.jtick.feedsim;

import io.jtick.boot.OpenApiContract;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.Closer;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * feed-sim's OpenAPI document against the real service, its feed connected to a real tickerplant on
 * loopback: every request mapping documented, every operation with a summary, an example and its
 * error answers, and every documented example accepted, in the order a user would send them (start
 * the feed, stop it, start a profiling run, read it, list runs, stop it).
 */
class FeedSimOpenApiIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldDocumentEveryEndpointAndAcceptTheDocumentedExamples() throws Exception {
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, new TickMetrics()).start());
        // the console's pass-through: "tp" is this feed-sim itself (its /actuator/health answers the example), "rdb" nothing
        final int httpPort = freePort();
        final ConfigurableApplicationContext app = closer.track(new SpringApplicationBuilder(FeedSimApplication.class).run(
            "--server.port=" + httpPort, "--server.address=127.0.0.1", "--tick.feed.tp-port=" + tp.port(),
            "--tick.console.tp-url=http://127.0.0.1:" + httpPort, "--tick.console.rdb-url=http://127.0.0.1:" + freePort(),
            "--tick.feed.runs-dir=" + dir.resolve("runs"), "--tick.feed.lab-dir=" + dir.resolve("lab"),
            "--tick.feed.paper-figures=" + ProfilingIT.paperFile(), "--tick.feed.jit-warmup=200ms"));
        final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));

        final OpenApiContract api = OpenApiContract.fetch(app, port);
        final List<String> operations = List.of("GET /api/feed", "POST /api/feed/start", "POST /api/feed/stop", "POST /api/runs",
            "GET /api/runs", "GET /api/runs/{id}", "DELETE /api/runs/{id}", "GET /api/experiments", "GET /api/console",
            "GET /api/console/{service}/{resource}", "POST /api/console/{target}/query", "POST /api/console/{target}/sql",
            "POST /api/console/hdb/compression-study");
        assertThat(api.assertEveryMappingDocumented(app)).containsExactlyInAnyOrderElementsOf(operations);
        api.assertEveryOperationDescribed();

        assertThat(api.sendExamples("GET /api/feed", Map.of())).singleElement().asString().contains("\"state\":\"idle\"");
        assertThat(api.sendExamples("GET /api/experiments", Map.of())).singleElement().asString()
            .contains("\"id\":\"rows-per-update\"", "\"defaultMatrix\":[{");
        assertThat(api.sendExamples("GET /api/console", Map.of())).singleElement().asString()
            .contains("\"url\":\"http://127.0.0.1:" + httpPort + "\"", "\"gateway\":\"hdb /api/gateway/query\"");
        assertThat(api.sendExamples("GET /api/console/{service}/{resource}", Map.of())).singleElement().asString()
            .contains("\"status\":\"UP\"");
        // what the pass-through does not forward, and a service that does not answer: errors naming them, counted
        // (its query and study examples need an RDB and an HDB: ConsoleIT, system-tests, sends real ones through it)
        assertThat(send(httpPort, "GET", "/api/console/tp/eod")).satisfies(r -> {
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(r.body()).contains("the console does not forward this [service=tp, resource=eod, forwarded=cluster|health|status]");
        });
        assertThat(send(httpPort, "GET", "/api/console/rdb/status")).satisfies(r -> {
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.body()).contains("rdb did not answer [url=http://127.0.0.1:");
        });
        assertThat(send(httpPort, "GET", "/actuator/prometheus").body())
            .contains("tick_console_forward_refused_total", "tick_console_forward_failed_total", "tick_console_forwarded_total");
        assertThat(api.sendExamples("POST /api/feed/start", Map.of())).singleElement().asString().contains("\"running\":true");
        await("the example feed reaches the tickerplant", Duration.ofSeconds(30), () -> tp.status().journalSequence() > 0);
        assertThat(api.sendExamples("POST /api/feed/stop", Map.of())).singleElement().asString().contains("\"running\":false");

        final JsonNode started = JSON.readTree(api.sendExamples("POST /api/runs", Map.of()).get(0));
        final String id = started.get("id").asString();
        final Map<String, String> run = Map.of("id", id);
        await("the example run ends", Duration.ofSeconds(90),
            () -> !JSON.readTree(api.sendExamples("GET /api/runs/{id}", Map.of("id", id, "format", "json")).get(0))
                .get("status").asString().equals("running"));
        assertThat(api.sendExamples("GET /api/runs/{id}", run)).singleElement().asString()
            .contains("jtick profiling run " + id, "status done");
        assertThat(api.sendExamples("GET /api/runs", Map.of())).singleElement().asString().contains(id);
        assertThat(api.sendExamples("DELETE /api/runs/{id}", run)).singleElement().asString().contains("\"status\":\"done\"");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static HttpResponse<String> send(final int port, final String method, final String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    }
}
