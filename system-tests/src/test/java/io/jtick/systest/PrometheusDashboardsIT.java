package io.jtick.systest;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.testing.Closer;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.feedsim.FeedSimApplication;
import io.jtick.hdb.HdbApplication;
import io.jtick.rdb.RdbApplication;
import io.jtick.tp.TpApplication;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.app;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.get;
import static io.jtick.systest.TickStack.ok;
import static io.jtick.systest.TickStack.port;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped dashboards against a real Prometheus (the Debian package; {@code .ci/run} installs it)
 * scraping the real services on loopback: tp-service, two rdb-service apps, hdb-service and feed-sim
 * on random ports, scraped every second with helm/prometheus/prometheus.yml (ports and interval
 * changed, nothing else). The feed runs through the tickerplant, end of day writes a partition to
 * the HDB, queries go to both RDBs, the HDB and the gateway, the tickerplant switches to timer
 * publish. Then:
 * <ul>
 *   <li>every dashboard is valid Grafana JSON (schema version, datasource variable, unique panel
 *       ids, every panel on that datasource with a query);</li>
 *   <li>every PromQL expression of every dashboard, with {@code $instance} set to what its variable
 *       query finds and {@code $__rate_interval} to 4 s (Grafana's value for a 1 s scrape), returns
 *       at least one series with a number, through Prometheus's HTTP API; a failure names the
 *       dashboard and panel. The one exception is the cluster dashboard while the tickerplant runs
 *       as a single node (see {@link #CLUSTER_BOARD}): its expressions must parse and evaluate, and
 *       may answer no series;</li>
 *   <li>after the feed stops, the tplog p99 panel's expression over the whole run agrees with the
 *       tickerplant's own HdrHistogram p99 within one bucket (a factor 2^(1/8), docs/metrics.md),
 *       and the RDB panel's p99 across both RDBs agrees with the two RDBs' HdrHistograms merged.</li>
 * </ul>
 * It prints what the release note quotes: the expressions with their series counts, the two-RDB
 * quantile, and the size and time of one {@code /actuator/prometheus} answer of the tickerplant
 * (also written to {@code target/prometheus-dashboards.txt}).
 */
class PrometheusDashboardsIT {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path DASHBOARDS = REPO.resolve("helm/jtick/dashboards");
    private static final Path SCRAPE_CONFIG = REPO.resolve("helm/prometheus/prometheus.yml");
    /** One bucket: the ratio of neighbouring bounds, plus HdrHistogram's own 0.1%. */
    private static final double BUCKET = Math.pow(2, 1.0 / 8) * 1.001;
    private static final String RATE_INTERVAL = "4s";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /**
     * The replicated tickerplant's dashboard: its metrics ({@code tick_tp_cluster_*}) exist only on a tp-service in
     * cluster mode ({@code tick.tp.cluster.enabled}). While the tickerplant this test scrapes is a single node
     * ({@code GET /api/cluster} absent or {@code "enabled":false}), each of its expressions is sent to Prometheus
     * and must parse and evaluate to an instant vector, but may be empty; its {@code $instance} is then Grafana's
     * "All" ({@code .*}). Once the tickerplant answers {@code "enabled":true} it is held to the rule of the others.
     * TODO(issue 27) cluster-mode hook: start the tickerplant below as a 3-node cluster (tick.tp.cluster.*, every
     * node a target of the tp-service job in {@link #startPrometheus}); {@link #tpClusterMode} then switches this
     * dashboard to the strict rule with no other change.
     */
    private static final String CLUSTER_BOARD = "cluster.json";

    @TempDir
    Path dir;

    private final Closer closer = new Closer();
    private final StringBuilder report = new StringBuilder();
    private int promPort;

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    /** The panels of one dashboard with their queries, and the dashboard's variable queries. */
    private record Board(String file, JsonNode json) {
        String title() {
            return json.path("title").asString();
        }
    }

    private record Expr(String board, String panel, String legend, String expr) {
    }

    @Test
    void shouldAnswerEveryDashboardQueryFromARealPrometheus() throws Exception {
        final String prometheus = prometheusBinary();
        assumeTrue(prometheus != null, "no prometheus binary on PATH (Debian: apt-get install prometheus; .ci/run installs it)");
        final List<Board> boards = boards();
        boards.forEach(PrometheusDashboardsIT::checkGrafanaJson);

        // the services, each on a random loopback port
        final Path hdbRoot = Files.createDirectories(dir.resolve("hdb"));
        final Path journal = dir.resolve("journal");
        // TODO(issue 27) cluster-mode hook: a 3-node cluster here puts the cluster dashboard under the strict rule (CLUSTER_BOARD)
        final ConfigurableApplicationContext tp = closer.track(app(TpApplication.class, "tp-service", "--tick.tp.port=0",
            "--tick.tp.kdb-port=0",
            "--tick.tp.journal-dir=" + journal, "--tick.tp.zone=UTC",
            "--tick.tp.eod-time=" + LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0)));
        final int tpFeedPort = tp.getBean(TickerplantServer.class).port();
        // the first RDB writes its end of day into the HDB, whose gateway asks that RDB for today: its port comes first
        final int rdb1Port = freePort();
        final ConfigurableApplicationContext hdb = closer.track(app(HdbApplication.class, "hdb-service",
            "--tick.hdb.root=" + hdbRoot, "--tick.hdb.tiering.enabled=false", "--tick.hdb.gateway.rdb-url=http://127.0.0.1:" + rdb1Port));
        final ConfigurableApplicationContext rdb1 = closer.track(app(RdbApplication.class, "rdb-service", "--server.port=" + rdb1Port,
            "--tick.rdb.tp-port=" + tpFeedPort, "--tick.rdb.reconnect-delay=100ms", "--tick.rdb.hdb.root=" + hdbRoot,
            "--tick.rdb.hdb.url=http://127.0.0.1:" + port(hdb), "--tick.rdb.journal-root=" + journal));
        final ConfigurableApplicationContext rdb2 = closer.track(app(RdbApplication.class, "rdb-service",
            "--tick.rdb.tp-port=" + tpFeedPort, "--tick.rdb.reconnect-delay=100ms"));
        final ConfigurableApplicationContext feed = closer.track(app(FeedSimApplication.class, "feed-sim",
            "--tick.feed.tp-port=" + tpFeedPort, "--tick.feed.runs-dir=" + dir.resolve("runs")));
        final ConfigurableApplicationContext gatewayHdb = hdb;
        for (final ConfigurableApplicationContext rdb : List.of(rdb1, rdb2)) {
            eventually("RDB subscribed", () -> get(port(rdb), "/api/status").get("subscribed").asBoolean(), () -> "");
        }
        final Map<String, Integer> targets = new LinkedHashMap<>();
        targets.put("tp-service", port(tp));
        targets.put("rdb-service", port(rdb1));
        targets.put("rdb-service#2", port(rdb2));
        targets.put("hdb-service", port(gatewayHdb));
        targets.put("feed-sim", port(feed));

        startPrometheus(prometheus, targets);
        eventually("Prometheus scraped all " + targets.size() + " targets", () -> upTargets() == targets.size(), () -> http(
            "/api/v1/targets").body());
        // a sample of every histogram before the first update: rate() over the run then starts from zero
        eventually("a zero tplog sample", () -> query("tick_tp_log_seconds_count{job=\"tp-service\"} == 0").size() == 1, () -> "");
        final double started = promTime();

        // the run: feed, end of day into the HDB, queries everywhere, then timer publish
        ok(port(feed), "POST", "/api/feed/start", "{\"table\":\"trade\",\"r\":10,\"u\":1,\"t\":2,\"syms\":50}");
        final AtomicBoolean querying = new AtomicBoolean(true);
        final Thread queries = new Thread(() -> queryLoop(querying, port(rdb1), port(rdb2), port(gatewayHdb)), "dashboard-queries");
        queries.setDaemon(true);
        queries.start();
        closer.track(() -> {
            querying.set(false);
            queries.join(10_000);
        });
        eventually("rows in both RDBs", () -> rows(port(rdb1)) > 1000 && rows(port(rdb2)) > 1000, () -> "");
        ok(port(tp), "POST", "/api/eod", null);
        eventually("the day's partition in the HDB", () -> get(port(gatewayHdb), "/api/status").get("partitions").asInt() == 1, () -> "");
        ok(port(tp), "PUT", "/api/mode", "{\"mode\":\"timer-publish\",\"timer\":\"20ms\"}");

        // every expression of every dashboard returns at least one series with a number (the cluster dashboard's on a
        // single-node tickerplant: evaluates, may be empty)
        final boolean clusterMode = tpClusterMode(port(tp));
        final List<Expr> exprs = new ArrayList<>();
        final Set<Expr> mayBeEmpty = new HashSet<>();
        final Map<String, String> instances = new LinkedHashMap<>();
        for (final Board b : boards) {
            final boolean lenient = CLUSTER_BOARD.equals(b.file()) && !clusterMode;
            instances.put(b.file(), instanceRegex(b, lenient));
            final List<Expr> boardExprs = expressions(b, instances.get(b.file()));
            exprs.addAll(boardExprs);
            if (lenient) {
                mayBeEmpty.addAll(boardExprs);
            }
        }
        if (!clusterMode) {
            assertThat(mayBeEmpty).as("expressions of %s", CLUSTER_BOARD).isNotEmpty();
        }
        final Map<Expr, String> failing = new LinkedHashMap<>();
        final Map<Expr, Integer> series = new LinkedHashMap<>();
        eventually("every dashboard expression answered", () -> {
            failing.clear();
            for (final Expr e : exprs) {
                final List<JsonNode> result = query(e.expr());   // a parse or evaluation error fails here, lenient or not
                final long numbers = result.stream().filter(r -> Double.isFinite(value(r))).count();
                series.put(e, result.size());
                if (numbers == 0 && !mayBeEmpty.contains(e)) {
                    failing.put(e, result.isEmpty() ? "no series" : result.size() + " series, none with a number (NaN: no events in "
                        + RATE_INTERVAL + ")");
                }
            }
            return failing.isEmpty();
        }, () -> failing.entrySet().stream().map(f -> "dashboard '" + f.getKey().board() + "' panel '" + f.getKey().panel() + "' ("
            + f.getKey().legend() + "): " + f.getValue() + ": " + f.getKey().expr()).collect(Collectors.joining("\n  ", "\n  ", "")));
        line("# %d expressions of %d dashboards, $__rate_interval=%s, $instance per dashboard %s", exprs.size(), boards.size(),
            RATE_INTERVAL, instances);
        line("# tickerplant cluster mode: %s; %d expressions of %s evaluated and allowed to be empty (single node)", clusterMode,
            mayBeEmpty.size(), CLUSTER_BOARD);
        series.forEach((e, n) -> line("%2d series  %-14s %-55s %-24s %s", n, e.board(), e.panel(), e.legend(), e.expr()));

        // after the feed stops: the dashboards' p99 over the whole run against the services' own HdrHistograms
        ok(port(feed), "POST", "/api/feed/stop", null);
        final TickMetrics tpMetrics = tp.getBean(TickMetrics.class);
        eventually("the feed stopped", () -> !get(port(feed), "/api/feed").path("running").asBoolean(true), () -> "");
        final long tpUpdates = settled(() -> tpMetrics.latency("tick.tp.log", "").count());
        eventually("Prometheus holds every tplog value", () -> scalar("sum(tick_tp_log_seconds_count{job=\"tp-service\"})") == tpUpdates,
            () -> "TP counted " + tpUpdates);
        final List<TickMetrics> rdbMetrics = List.of(rdb1.getBean(TickMetrics.class), rdb2.getBean(TickMetrics.class));
        final long rdbUpdates = settled(() -> rdbMetrics.stream().mapToLong(m -> m.latency("tick.rdb.recv", "").count()).sum());
        eventually("Prometheus holds every rdbrecv value",
            () -> scalar("sum(tick_rdb_recv_seconds_count{job=\"rdb-service\"})") == rdbUpdates, () -> "RDBs counted " + rdbUpdates);
        final String window = (long) Math.ceil(promTime() - started) + 15 + "s";

        final Histogram tplog = tpMetrics.latency("tick.tp.log", "").snapshot();
        final Expr tplogP99 = exprs.stream()
            .filter(e -> e.expr().startsWith("histogram_quantile(0.99,") && e.expr().contains("tick_tp_log_"))
            .findFirst().orElseThrow();
        final String tplogExpr = tplogP99.expr().replace("[" + RATE_INTERVAL + "]", "[" + window + "]");
        final double promTplog = single(tplogExpr);
        agree("tplog p99, dashboard '" + tplogP99.board() + "' panel '" + tplogP99.panel() + "'", promTplog, tplog, 0);

        final Histogram merged = new Histogram(3_600_000_000_000L, 3);
        rdbMetrics.forEach(m -> merged.add(m.latency("tick.rdb.recv", "").snapshot()));
        final Expr allRdbs = exprs.stream().filter(e -> e.expr().contains("tick_rdb_recv_") && e.expr().contains("sum by (le) ("))
            .findFirst().orElseThrow();
        final String allRdbsExpr = allRdbs.expr().replace("[" + RATE_INTERVAL + "]", "[" + window + "]");
        final double promRdbs = single(allRdbsExpr);
        // two targets scraped at different instants extrapolate rate() by factors up to 0.5 s / run apart:
        // the merged rank may move by 0.1% of the values (see docs/metrics.md)
        agree("rdbrecv p99 across both RDBs, dashboard '" + allRdbs.board() + "' panel '" + allRdbs.panel() + "'", promRdbs, merged,
            (merged.getTotalCount() + 999) / 1000);
        final double exactRdbs = single("histogram_quantile(0.99, sum by (le) (tick_rdb_recv_seconds_bucket{job=\"rdb-service\"}))");
        agree("rdbrecv p99 across both RDBs, lifetime buckets without rate()", exactRdbs, merged, 0);
        line("# two RDB instances, one TP: %s", allRdbsExpr);
        line("%s", JSON.writeValueAsString(queryRaw(allRdbsExpr)));
        line("# per instance: %s", JSON.writeValueAsString(queryRaw(
            "histogram_quantile(0.99, sum by (le, instance) (rate(tick_rdb_recv_seconds_bucket{job=\"rdb-service\"}[" + window + "])))")));
        line("# HdrHistogram p99: rdb1 %.1f us, rdb2 %.1f us, merged %.1f us (%d values); Prometheus across both %.1f us",
            rdbMetrics.get(0).latency("tick.rdb.recv", "").snapshot().getValueAtPercentile(99) / 1e3,
            rdbMetrics.get(1).latency("tick.rdb.recv", "").snapshot().getValueAtPercentile(99) / 1e3,
            merged.getValueAtPercentile(99) / 1e3, merged.getTotalCount(), promRdbs * 1e6);
        line("# tplog p99: HdrHistogram %.1f us (%d values), Prometheus %.1f us (%s)", tplog.getValueAtPercentile(99) / 1e3,
            tplog.getTotalCount(), promTplog * 1e6, tplogExpr);

        scrapeCost(port(tp));
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "prometheus-dashboards.txt"), report);
        System.out.print(report);
    }

    // ------------------------------------------------------------------ dashboards

    private static List<Board> boards() throws IOException {
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            final List<Board> boards = new ArrayList<>();
            for (final Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                boards.add(new Board(f.getFileName().toString(), JSON.readTree(Files.readString(f))));
            }
            assertThat(boards).as("dashboards in %s", DASHBOARDS).isNotEmpty();
            return boards;
        }
    }

    /** What Grafana needs to import and provision the dashboard with any Prometheus datasource. */
    private static void checkGrafanaJson(final Board b) {
        final JsonNode json = b.json();
        assertThat(json.path("schemaVersion").asInt(0)).as("%s schemaVersion", b.file()).isGreaterThanOrEqualTo(36);
        assertThat(json.path("uid").asString("")).as("%s uid", b.file()).isNotBlank();
        assertThat(json.path("title").asString("")).as("%s title", b.file()).isNotBlank();
        final List<JsonNode> vars = list(json.path("templating").path("list"));
        assertThat(vars).as("%s: datasource variable DS_PROMETHEUS of type prometheus", b.file())
            .anyMatch(v -> "datasource".equals(v.path("type").asString()) && "DS_PROMETHEUS".equals(v.path("name").asString())
                && "prometheus".equals(v.path("query").asString()));
        final Set<Integer> ids = new HashSet<>();
        for (final JsonNode p : panels(json)) {
            final String title = p.path("title").asString();
            assertThat(p.path("id").isInt()).as("%s panel '%s' has an id", b.file(), title).isTrue();
            assertThat(ids.add(p.path("id").asInt())).as("%s panel id %s is unique", b.file(), p.path("id")).isTrue();
            assertThat(p.path("gridPos").path("w").asInt(0)).as("%s panel '%s' gridPos", b.file(), title).isPositive();
            if ("row".equals(p.path("type").asString())) {
                continue;
            }
            assertThat(p.path("datasource").path("uid").asString()).as("%s panel '%s' datasource", b.file(), title)
                .isEqualTo("${DS_PROMETHEUS}");
            assertThat(list(p.path("targets"))).as("%s panel '%s' queries", b.file(), title).isNotEmpty()
                .allMatch(t -> !t.path("expr").asString("").isBlank());
        }
    }

    /** Panels, including those nested in collapsed rows. */
    private static List<JsonNode> panels(final JsonNode board) {
        final List<JsonNode> out = new ArrayList<>();
        for (final JsonNode p : list(board.path("panels"))) {
            out.add(p);
            out.addAll(list(p.path("panels")));
        }
        return out;
    }

    private static List<JsonNode> list(final JsonNode array) {
        final List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    /**
     * The dashboard's {@code instance} variable as Grafana fills it with every value selected: its
     * {@code label_values(metric, instance)} query run through Prometheus, values regex-escaped and
     * joined with '|'. Must find at least one, unless {@code mayFindNone} (the cluster dashboard on a single
     * node): then, finding none, it is Grafana's "All" value {@code .*}.
     */
    private String instanceRegex(final Board b, final boolean mayFindNone) {
        for (final JsonNode v : list(b.json().path("templating").path("list"))) {
            if (!"instance".equals(v.path("name").asString())) {
                continue;
            }
            final String q = v.path("query").isObject() ? v.path("query").path("query").asString() : v.path("query").asString();
            final Matcher m = Pattern.compile("label_values\\((.+),\\s*instance\\)").matcher(q);
            assertThat(m.matches()).as("%s: variable query %s", b.file(), q).isTrue();
            final String metric = m.group(1);
            if (!mayFindNone) {
                // a scrape that timed out on a busy machine leaves the metric stale until the next one answers
                eventually(b.file() + ": instances from variable query " + q, () -> !instances(metric).isEmpty(), () -> "");
            }
            final List<String> values = instances(metric);
            if (values.isEmpty() && mayFindNone) {
                return v.path("allValue").asString(".*");
            }
            assertThat(values).as("%s: instances from variable query %s", b.file(), q).isNotEmpty();
            return values.stream().map(s -> s.replace(".", "\\\\.")).collect(Collectors.joining("|"));
        }
        return null;
    }

    /** The distinct {@code instance} labels of a metric's series, sorted. */
    private List<String> instances(final String metric) {
        return query(metric).stream().map(r -> r.path("metric").path("instance").asString()).distinct().sorted().toList();
    }

    /** Every target of every panel with the variables substituted; any '$' left over is a variable this test does not know. */
    private static List<Expr> expressions(final Board b, final String instance) {
        final List<Expr> out = new ArrayList<>();
        for (final JsonNode p : panels(b.json())) {
            for (final JsonNode t : list(p.path("targets"))) {
                String e = t.path("expr").asString().replace("$__rate_interval", RATE_INTERVAL);
                if (instance != null) {
                    e = e.replace("$instance", instance);
                }
                assertThat(e).as("%s panel '%s': unknown variable", b.file(), p.path("title").asString()).doesNotContain("$");
                out.add(new Expr(b.title(), p.path("title").asString(), t.path("legendFormat").asString(""), e));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ Prometheus

    private static String prometheusBinary() {
        final String configured = System.getenv("JTICK_PROMETHEUS");
        if (configured != null && Files.isExecutable(Path.of(configured))) {
            return configured;
        }
        for (final String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, "prometheus"))) {
                return Path.of(d, "prometheus").toString();
            }
        }
        return null;
    }

    /** helm/prometheus/prometheus.yml with this run's ports (both RDBs under rdb-service) and a 1 s scrape interval. */
    private void startPrometheus(final String binary, final Map<String, Integer> targets) throws Exception {
        String config = Files.readString(SCRAPE_CONFIG).replace("scrape_interval: 5s", "scrape_interval: 1s")
            .replace("scrape_timeout: 4s", "scrape_timeout: 1s").replace("evaluation_interval: 5s", "evaluation_interval: 1s");
        final Map<String, String> shipped = Map.of("tp-service", "8010", "rdb-service", "8011", "hdb-service", "8012", "feed-sim", "8013");
        for (final Map.Entry<String, String> s : shipped.entrySet()) {
            final String old = "[\"127.0.0.1:" + s.getValue() + "\"]";
            assertThat(config).as("%s targets %s in %s", s.getKey(), old, SCRAPE_CONFIG).contains(old);
            final String ours = targets.entrySet().stream().filter(t -> t.getKey().split("#")[0].equals(s.getKey()))
                .map(t -> "\"127.0.0.1:" + t.getValue() + "\"").collect(Collectors.joining(", ", "[", "]"));
            config = config.replace(old, ours);
        }
        final Path file = Files.writeString(dir.resolve("prometheus.yml"), config);
        for (int tries = 0; ; tries++) {
            final int attempt = tries;
            promPort = freePort();
            final Process p = new ProcessBuilder(binary, "--config.file=" + file, "--storage.tsdb.path=" + dir.resolve("prometheus"),
                "--web.listen-address=127.0.0.1:" + promPort).redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus-" + attempt + ".log").toFile()).start();
            closer.track(() -> {
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            });
            try {
                eventually("Prometheus ready on 127.0.0.1:" + promPort, () -> {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("prometheus exited: " + log(attempt));
                    }
                    return ready();
                }, () -> log(attempt));
                return;
            } catch (final AssertionError | IllegalStateException e) {
                if (attempt == 2) {
                    throw e;
                }
            }
        }
    }

    private String log(final int attempt) {
        try {
            return Files.readString(dir.resolve("prometheus-" + attempt + ".log"));
        } catch (final IOException e) {
            return e.toString();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private boolean ready() {
        try {
            return http("/-/ready").statusCode() == 200;
        } catch (final AssertionError e) {
            return false; // not listening yet
        }
    }

    /** Polls {@code condition} every 250 ms until it holds; after {@link #WAIT} fails with {@code what} and the details. */
    private static void eventually(final String what, final java.util.function.BooleanSupplier condition,
                                   final java.util.function.Supplier<String> details) {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + WAIT + " waiting for: " + what + " " + details.get());
            }
            try {
                Thread.sleep(250);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private HttpResponse<String> http(final String pathAndQuery) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + promPort + pathAndQuery))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new AssertionError("Prometheus on 127.0.0.1:" + promPort + ": " + e, e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private long upTargets() {
        final JsonNode r = JSON.readTree(http("/api/v1/targets?state=active").body());
        return list(r.path("data").path("activeTargets")).stream().filter(t -> "up".equals(t.path("health").asString())).count();
    }

    /** The whole answer of an instant query (status, data). */
    private JsonNode queryRaw(final String promql) {
        final HttpResponse<String> r = http("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        final JsonNode json = JSON.readTree(r.body());
        assertThat(r.statusCode()).as("%s -> %s", promql, r.body()).isEqualTo(200);
        assertThat(json.path("status").asString()).as("%s -> %s", promql, r.body()).isEqualTo("success");
        return json;
    }

    /** The series of an instant vector query. */
    private List<JsonNode> query(final String promql) {
        final JsonNode data = queryRaw(promql).path("data");
        assertThat(data.path("resultType").asString()).as(promql).isEqualTo("vector");
        return list(data.path("result"));
    }

    private static double value(final JsonNode series) {
        return Double.parseDouble(series.path("value").get(1).asString());
    }

    /** The one value of a query that must answer one series (NaN while it answers none). */
    private double scalar(final String promql) {
        final List<JsonNode> r = query(promql);
        return r.size() == 1 ? value(r.get(0)) : Double.NaN;
    }

    private double single(final String promql) {
        final List<JsonNode> r = query(promql);
        assertThat(r).as(promql).hasSize(1);
        return value(r.get(0));
    }

    /** Prometheus's clock, seconds (a scalar answer: [time, "value"]). */
    private double promTime() {
        return Double.parseDouble(queryRaw("time()").path("data").path("result").get(1).asString());
    }

    /**
     * Prometheus's estimate agrees with the HdrHistogram p99 within one bucket: histogram_quantile
     * takes the bucket where the rank 0.99 × n falls, so the value HdrHistogram holds at that rank
     * (ceil(0.99 n), and {@code slack} ranks either side) lies in the same bucket, and the estimate is
     * within a bucket's ratio of it.
     */
    private void agree(final String what, final double promSeconds, final Histogram h, final long slack) {
        final long rank = (long) Math.ceil(0.99 * h.getTotalCount());
        final double lo = valueAtRank(h, Math.max(1, rank - slack)) / 1e9 / BUCKET;
        final double hi = valueAtRank(h, Math.min(h.getTotalCount(), rank + slack)) / 1e9 * BUCKET;
        line("# %s: Prometheus %.2f us, HdrHistogram p99 %.2f us (rank %d of %d), allowed %.2f..%.2f us", what, promSeconds * 1e6,
            valueAtRank(h, rank) / 1e3, rank, h.getTotalCount(), lo * 1e6, hi * 1e6);
        assertThat(promSeconds).as(what).isBetween(lo, hi);
    }

    /** The rank-th smallest value (1-based), as HdrHistogram reports it (its bucket's highest equivalent value). */
    private static long valueAtRank(final Histogram h, final long rank) {
        long seen = 0;
        for (final org.HdrHistogram.HistogramIterationValue v : h.recordedValues()) {
            seen += v.getCountAtValueIteratedTo();
            if (seen >= rank) {
                return v.getValueIteratedTo();
            }
        }
        return h.getMaxValue();
    }

    // ------------------------------------------------------------------ services

    /** Whether the tickerplant runs as a cluster member: {@code GET /api/cluster} answers {@code "enabled":true}. */
    private static boolean tpClusterMode(final int tpPort) throws Exception {
        final HttpResponse<String> r = call(tpPort, "GET", "/api/cluster", null);
        return r.statusCode() == 200 && JSON.readTree(r.body()).path("enabled").asBoolean(false);
    }

    private static long rows(final int rdbPort) {
        return get(rdbPort, "/api/status").path("rows").asLong(0);
    }

    /** A count read until two reads 300 ms apart agree (the last updates still in flight when the feed stops). */
    private static long settled(final java.util.function.LongSupplier count) throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 100; i++) {
            final long now = count.getAsLong();
            if (now == last) {
                return now;
            }
            last = now;
            Thread.sleep(300);
        }
        throw new AssertionError("count still moving after 30 s: " + last);
    }

    /** A query every 100 ms to each RDB, the HDB (once it has the day) and the gateway, until told to stop. */
    private static void queryLoop(final AtomicBoolean running, final int rdb1, final int rdb2, final int hdb) {
        final String vwap = "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},"
            + "\"by\":[\"sym\"]}";
        final String byDate = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"date\"}";
        while (running.get()) {
            try {
                call(rdb1, "POST", "/api/query", vwap);
                call(rdb2, "POST", "/api/query", "{\"table\":\"trade\",\"limit\":10}");
                call(hdb, "POST", "/api/query", byDate);
                call(hdb, "POST", "/api/gateway/query", byDate);
                Thread.sleep(100);
            } catch (final InterruptedException e) {
                return;
            } catch (final Exception e) {
                // a service closing at the end of the test: the loop stops with it
            }
        }
    }

    /** Time and bytes of the tickerplant's /actuator/prometheus answer: 5 warm-up scrapes, then the median of 21. */
    private void scrapeCost(final int tpPort) throws Exception {
        final long[] nanos = new long[21];
        int bytes = 0;
        for (int i = -5; i < nanos.length; i++) {
            final long t0 = System.nanoTime();
            final HttpResponse<String> r = call(tpPort, "GET", "/actuator/prometheus", null, "text/plain;version=0.0.4");
            final long t = System.nanoTime() - t0;
            assertThat(r.statusCode()).isEqualTo(200);
            if (i >= 0) {
                nanos[i] = t;
                bytes = r.body().getBytes(StandardCharsets.UTF_8).length;
            }
        }
        Arrays.sort(nanos);
        final String text = call(tpPort, "GET", "/actuator/prometheus", null, "text/plain;version=0.0.4").body();
        final long lines = text.lines().filter(l -> !l.startsWith("#")).count();
        final long bucketLines = text.lines().filter(l -> l.startsWith("tick_") && l.contains("_bucket{")).count();
        line("# tp-service /actuator/prometheus: %d bytes, %d samples (%d histogram buckets), median %.2f ms (min %.2f, max %.2f) "
            + "over %d scrapes on loopback (HTTP client in the same JVM; machine shared)", bytes, lines, bucketLines,
            nanos[nanos.length / 2] / 1e6, nanos[0] / 1e6, nanos[nanos.length - 1] / 1e6, nanos.length);
    }

    private void line(final String format, final Object... args) {
        report.append(String.format(format, args)).append('\n');
    }
}
