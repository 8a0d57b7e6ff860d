package io.jtick.feedsim;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.core.testing.TestSupport.g1FullCollections;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The profiling control plane end to end: the real feed-sim app on a random port runs a short
 * version of every experiment through its REST API (real tickerplants, subscriber connections
 * and feeds on loopback), and the table that comes back is checked for shape, for every figure
 * being a real measurement, and for every subscriber having received every row sent.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ProfilingIT {
    private static final Duration RUN_WAIT = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> FIGURES = List.of("tplog", "tppub", "tpupd", "tpflush", "rdbrecv", "rdbupd", "rdbrecv_last",
        "rdbupd_last");

    @TempDir
    static Path tmp;

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.feed.runs-dir", () -> tmp.resolve("runs").toString());
        registry.add("tick.feed.lab-dir", () -> tmp.resolve("lab").toString());
        registry.add("tick.feed.paper-figures", () -> paperFile().toString());
        registry.add("tick.feed.jit-warmup", () -> "200ms");
        registry.add("tick.feed.tp-port", () -> 1);
    }

    static Path paperFile() {
        return Path.of(System.getProperty("jtick.shared.data", "../shared/data")).resolveSibling("reference")
            .resolve("kx-tick-profiling.csv");
    }

    private HttpResponse<String> call(final String method, final String path, final String body, final String accept) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
        if (accept != null) {
            b.header("Accept", accept);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(final String body) {
        return JSON.readValue(body, Map.class);
    }

    private String start(final String body) throws Exception {
        final HttpResponse<String> r = call("POST", "/api/runs", body, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        final String id = (String) json(r.body()).get("id");
        assertThat(r.headers().firstValue("Location")).hasValue("/api/runs/" + id);
        return id;
    }

    private Map<String, Object> awaitEnd(final String id) {
        await("run " + id + " ended", RUN_WAIT, () -> {
            try {
                return !"running".equals(json(call("GET", "/api/runs/" + id, null, null).body()).get("status"));
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            return json(call("GET", "/api/runs/" + id, null, null).body());
        } catch (final Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * About a minute (every experiment runs for real; io.q's on a 256 MB file): in the slow suite,
     * {@code ./mvnw -B -Pslow test -Dgroups=slow}.
     */
    @Test
    @Tag("slow")
    @SuppressWarnings("unchecked")
    void shouldRunEveryExperimentEndToEndAndGiveBackItsTable() throws Exception {
        final Map<String, String> runs = new java.util.LinkedHashMap<>();
        final List<String> ids = new java.util.ArrayList<>();
        runs.put("rows-per-update", "[{\"r\":1,\"u\":10,\"t\":1},{\"r\":100,\"u\":1,\"t\":10}]");
        runs.put("row-size", "[{\"r\":10,\"u\":10,\"t\":1,\"ex\":10}]");
        runs.put("publish-frequency", "[{\"mode\":\"timer-publish\",\"timer\":\"50ms\"},{\"mode\":\"timer-log-publish\",\"timer\":50}]");
        runs.put("subscribers", "[{\"r\":10,\"subscribers\":3}]");
        runs.put("broadcast", "[{\"r\":50,\"t\":50,\"subscribers\":3,\"broadcast\":false},{\"r\":1000,\"t\":200,\"subscribers\":2}]");
        runs.put("custom", "[{\"r\":10,\"u\":2,\"t\":1,\"ex\":2,\"subscribers\":2}]");
        runs.put("throughput", "[{\"r\":1000},{\"r\":10000}]");
        runs.put("io", "[{}]");
        for (final Map.Entry<String, String> e : runs.entrySet()) {
            if (e.getKey().equals("throughput") || e.getKey().equals("io")) {
                ids.add(checkScript(e.getKey(), e.getValue()));
                continue;
            }
            final List<Object> matrix = JSON.readValue(e.getValue(), List.class);
            final String id = start("{\"experiment\":\"" + e.getKey() + "\",\"durationSeconds\":1,\"matrix\":" + e.getValue() + "}");
            ids.add(id);
            final Map<String, Object> run = awaitEnd(id);
            final String text = call("GET", "/api/runs/" + id + "?format=text", null, null).body();
            assertThat(run.get("status")).as(text).isEqualTo("done");
            assertThat(run.get("experiment")).isEqualTo(e.getKey());
            final List<Map<String, Object>> rows = (List<Map<String, Object>>) run.get("rows");
            assertThat(rows).as(e.getKey()).hasSize(matrix.size());
            for (final Map<String, Object> row : rows) {
                checkRow(e.getKey(), row);
            }
            checkFormats(id, e.getKey(), rows.size(), text);
            if (e.getKey().equals("rows-per-update")) {
                checkPaper(rows.get(0));
            }
        }
        final List<Map<String, Object>> list = JSON.readValue(call("GET", "/api/runs", null, null).body(), List.class);
        final List<Map<String, Object>> mine = list.stream().filter(m -> ids.contains(m.get("id"))).toList();
        assertThat(mine).extracting(m -> m.get("experiment")).containsExactlyInAnyOrderElementsOf(runs.keySet());
        assertThat(mine).extracting(m -> m.get("status")).containsOnly("done");
        for (final String id : ids) {
            assertThat(tmp.resolve("runs").resolve(id + ".json")).as("stored").exists();
        }
    }

    /** A run of a seed script's experiment: every entry done, each measure with KX's figure and the ratio; the run's id. */
    @SuppressWarnings("unchecked")
    private String checkScript(final String experiment, final String matrix) throws Exception {
        final String id = start("{\"experiment\":\"" + experiment + "\",\"matrix\":" + matrix + "}");
        final Map<String, Object> run = awaitEnd(id);
        final String text = call("GET", "/api/runs/" + id + "?format=text", null, null).body();
        assertThat(run.get("status")).as(text).isEqualTo("done");
        final List<Map<String, Object>> rows = (List<Map<String, Object>>) run.get("rows");
        assertThat(rows).hasSize(JSON.readValue(matrix, List.class).size());
        int measures = 0;
        for (final Map<String, Object> row : rows) {
            assertThat(row.get("status")).as(text).isEqualTo("done");
            for (final Map<String, Object> m : (List<Map<String, Object>>) row.get("measures")) {
                assertThat(((Number) m.get("value")).doubleValue()).as(m.toString()).isPositive();
                assertThat(((Number) m.get("kx")).doubleValue()).as(m.toString()).isPositive();
                assertThat(((Number) m.get("ratio")).doubleValue()).as(m.toString()).isPositive();
                measures++;
            }
        }
        assertThat(text).contains("jtick profiling run " + id, experiment.equals("io") ? "local comm" : "million inserts per second");
        final HttpResponse<String> csv = call("GET", "/api/runs/" + id, null, "text/csv");
        assertThat(csv.body().lines().count()).isEqualTo(measures + 1L);
        assertThat(call("GET", "/api/runs/" + id + "?format=svg", null, null).body()).startsWith("<?xml").contains("<rect", "</svg>");
        return id;
    }

    /** throughput.q through the REST API (one bulk size, so it stays short): KX's figure and the ratio beside ours. */
    @Test
    @SuppressWarnings("unchecked")
    void shouldRunThroughputQFromTheRestApiWithKxsFigureBeside() throws Exception {
        final String id = start("{\"experiment\":\"throughput\",\"matrix\":[{\"r\":1000}]}");
        final Map<String, Object> run = awaitEnd(id);
        assertThat(run.get("status")).isEqualTo("done");
        final Map<String, Object> m = ((List<Map<String, Object>>) ((List<Map<String, Object>>) run.get("rows")).get(0).get("measures"))
            .get(0);
        assertThat(m).containsEntry("name", "bulk insert 1000").containsEntry("unit", "M rows/s").containsEntry("kx", 333.333);
        assertThat(((Number) m.get("value")).doubleValue()).isPositive();
        assertThat(call("GET", "/api/runs/" + id + "?format=text", null, null).body())
            .contains("million inserts per second (bulk insert 1000)", "KX Opteron");
    }

    /** A run's labs fill the heap; when the run ends one full collection hands it back (the process is idle again). */
    @Test
    void shouldRunOneFullCollectionWhenARunEnds() throws Exception {
        final GarbageCollectorMXBean full = g1FullCollections();
        final long before = full.getCollectionCount();
        final String id = start("{\"experiment\":\"throughput\",\"matrix\":[{\"r\":1000}]}");
        assertThat(awaitEnd(id).get("status")).isEqualTo("done");
        await("a full collection after run " + id, RUN_WAIT, () -> full.getCollectionCount() > before);
    }

    @SuppressWarnings("unchecked")
    private static void checkRow(final String experiment, final Map<String, Object> row) {
        final String what = experiment + " entry " + row.get("index");
        assertThat(row.get("status")).as(what).isEqualTo("done");
        assertThat(row.get("complete")).as(what + ": every subscriber received every row sent").isEqualTo(true);
        final long sent = ((Number) row.get("rowsSent")).longValue();
        assertThat(sent).as(what).isPositive();
        assertThat(((Number) row.get("rowsJournalled")).longValue()).as(what).isEqualTo(sent);
        assertThat(((Number) row.get("rowsReceivedMin")).longValue()).as(what).isEqualTo(sent);
        assertThat(((Number) row.get("rowsReceivedMax")).longValue()).as(what).isEqualTo(sent);
        assertThat(((Number) row.get("updatesSent")).longValue()).as(what).isPositive();
        assertThat(((Number) row.get("messageBytes")).doubleValue()).as(what).isPositive();
        assertThat(((Number) row.get("rowsPerSecond")).doubleValue()).as(what).isPositive();
        assertThat(((Number) row.get("measuredSeconds")).doubleValue()).as(what).isPositive();
        final Map<String, Object> figures = (Map<String, Object>) row.get("figures");
        for (final String f : FIGURES) {
            assertThat(figures).as(what).containsKey(f);
            final Map<String, Object> fig = (Map<String, Object>) figures.get(f);
            assertThat(((Number) fig.get("count")).longValue()).as(what + " " + f).isPositive();
            for (final String stat : List.of("median", "p99", "p999", "max")) {
                assertThat(((Number) fig.get(stat)).doubleValue()).as(what + " " + f + " " + stat).isPositive();
            }
        }
        final Map<String, Object> params = (Map<String, Object>) row.get("params");
        final boolean timer = !"zero-latency".equals(params.get("mode"));
        assertThat(figures.containsKey("tptimer")).as(what + ": tptimer only in the timer modes").isEqualTo(timer);
        final Map<String, Object> cpu = (Map<String, Object>) row.get("cpu");
        for (final String c : List.of("tp", "rdb", "rdbLast", "rdbAll", "feed", "timingNanos")) {
            assertThat(((Number) cpu.get(c)).doubleValue()).as(what + " cpu " + c).isPositive();
        }
    }

    @SuppressWarnings("unchecked")
    private static void checkPaper(final Map<String, Object> row) {
        if (!Files.isRegularFile(paperFile())) {
            System.out.println("ProfilingIT: " + paperFile() + " absent: paper comparison not checked");
            return;
        }
        final Map<String, Object> paper = (Map<String, Object>) row.get("paper");
        assertThat(paper).containsEntry("tplog", 14.0).containsEntry("rdbrecv", 71.0).containsEntry("tpcpu", 31.0);
        assertThat((String) row.get("paperRef")).startsWith("Table 1 (r=1, u=10, t=1");
        final Map<String, Object> ratio = (Map<String, Object>) row.get("ratio");
        assertThat(ratio).containsKeys("tplog", "tppub", "rdbrecv", "rdbupd", "tpcpu", "rdbcpu");
    }

    private void checkFormats(final String id, final String experiment, final int rows, final String text) throws Exception {
        assertThat(text).contains("jtick profiling run " + id, "status done", "got/s", "tails", "cpu, % of one core");
        final HttpResponse<String> csv = call("GET", "/api/runs/" + id, null, "text/csv");
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
        assertThat(csv.body().lines().count()).isEqualTo(rows + 1L);
        assertThat(csv.body().lines().skip(1)).allMatch(l -> l.startsWith(id + "," + experiment + ","));
        final HttpResponse<String> svg = call("GET", "/api/runs/" + id, null, "image/svg+xml");
        assertThat(svg.headers().firstValue("Content-Type").orElse("")).startsWith("image/svg+xml");
        assertThat(svg.body()).startsWith("<?xml").contains("<svg", "<polyline", "</svg>");
        final HttpResponse<String> plain = call("GET", "/api/runs/" + id, null, "text/plain");
        assertThat(plain.body()).isEqualTo(text);
    }

    @Test
    void shouldRefuseBadParametersAndASecondRunAndStopOnDelete() throws Exception {
        HttpResponse<String> r = call("POST", "/api/runs", "{\"experiment\":\"rows-per-update\",\"matrix\":[{\"r\":0}]}", null);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("matrix entry 1: r must be 1..1000000 [r=0]");
        r = call("POST", "/api/runs", "{\"experiment\":\"latency\"}", null);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("unknown experiment [experiment=latency");
        assertThat(call("POST", "/api/runs", "{\"experiment\":", null).statusCode()).isEqualTo(400);
        assertThat(call("POST", "/api/runs", null, null).statusCode()).isEqualTo(400);
        assertThat(call("POST", "/api/runs", "{\"experiment\":\"custom\"}", null).body()).contains("needs a matrix");

        final String id = start("{\"experiment\":\"subscribers\",\"durationSeconds\":60,\"matrix\":[{\"r\":10},{\"r\":100}]}");
        r = call("POST", "/api/runs", "{\"experiment\":\"rows-per-update\",\"durationSeconds\":1}", null);
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("already running", id);
        await("measuring", RUN_WAIT, () -> {
            try {
                return call("GET", "/api/runs/" + id, null, null).body().contains("\"currentPhase\" : \"measuring\"")
                    || call("GET", "/api/runs/" + id, null, null).body().contains("\"currentPhase\":\"measuring\"");
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
        });
        final HttpResponse<String> stopped = call("DELETE", "/api/runs/" + id, null, null);
        assertThat(stopped.statusCode()).isEqualTo(200);
        final Map<String, Object> run = json(stopped.body());
        assertThat(run.get("status")).isEqualTo("stopped");
        assertThat((String) run.get("reason")).contains("stopped on request during entry 1 of 2");
        assertThat((List<?>) run.get("rows")).hasSize(1);
        assertThat(json(call("GET", "/api/runs/" + id, null, null).body()).get("status")).isEqualTo("stopped");
        assertThat(Files.readString(tmp.resolve("runs").resolve(id + ".json"))).contains("\"stopped\"");

        final HttpResponse<String> missing = call("GET", "/api/runs/20200101-000000-custom-ffff", null, "text/csv");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("no such profiling run");
        assertThat(call("GET", "/api/runs/" + id + "?format=xml", null, null).statusCode()).isEqualTo(400);
        assertThat(call("DELETE", "/api/runs/nope", null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldRunFromTheCommandLineThroughTheRestApi() throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = ProfileCommand.run(new String[] {"custom", "--duration", "1", "--matrix", "[{\"r\":10,\"u\":1,\"t\":1}]",
            "--url", "http://127.0.0.1:" + port}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String table = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(table).contains("jtick profiling run", "status done", "tplog");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("running on feed-sim at", "run done");
    }
}
