package io.jtick.soak;

import io.jtick.core.query.model.Json;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * tp-service, rdb-service, hdb-service (optional) and feed-sim, each its own JVM from its jar, on free
 * loopback ports, with their data under one directory: the TP's journal, the HDB's root, the RDB's
 * local copy of an end of day on its way to the HDB ({@code transfer=upload}, so the two share no
 * directory and an HDB killed while it installs a day really leaves a half-received one behind).
 * Queries may return every row ({@code tick.query.max-rows}, {@code max-bytes} raised) so that
 * {@link RowCheck} can read all of them. The TP's end of day is set 12 hours ahead: days end only
 * when asked ({@code POST /api/eod}).
 */
public final class ProcessStack implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration START = Duration.ofMinutes(3);

    /**
     * @param withHdb     start an HDB and let the RDB send it its end of day
     * @param rdbHeap     the RDB's -Xmx (it holds the day in memory)
     * @param feedBuffer  feed-sim's buffer of unacknowledged updates ({@code tick.feed.buffer})
     */
    public record Options(boolean withHdb, String rdbHeap, String feedBuffer) {
        public static Options defaults() {
            return new Options(true, "2g", "256MB");
        }
    }

    private final int tpTcp;
    private final ServiceProcess tp;
    private final ServiceProcess rdb;
    private final ServiceProcess hdb;
    private final ServiceProcess feed;

    private ProcessStack(final Path repo, final Path dir, final Options o) throws IOException {
        this.tpTcp = freePort();
        final String version = version(repo);
        final Path logs = dir.resolve("log");
        final List<String> queryLimits = List.of("--tick.query.max-rows=2000000000", "--tick.query.max-bytes=64GB");
        final String eod = java.time.LocalTime.now(java.time.ZoneOffset.UTC).plusHours(12).withNano(0).toString();
        tp = new ServiceProcess("tp-service", repo, jar(repo, "tp-service", version), freePort(), List.of("-Xmx1g"),
            List.of("--tick.tp.port=" + tpTcp, "--tick.tp.journal-dir=" + dir.resolve("journal"), "--tick.tp.eod-time=" + eod,
                "--tick.tp.zone=UTC"), logs.resolve("tp-service.log"));
        final int hdbPort = freePort();
        hdb = !o.withHdb() ? null : new ServiceProcess("hdb-service", repo, jar(repo, "hdb-service", version), hdbPort,
            List.of("-Xmx1g"), concat(List.of("--tick.hdb.root=" + dir.resolve("hdb"), "--tick.hdb.tiering.enabled=false"),
            queryLimits), logs.resolve("hdb-service.log"));
        final List<String> rdbArgs = new ArrayList<>(List.of("--tick.rdb.tp-port=" + tpTcp, "--tick.rdb.reconnect-delay=200ms"));
        if (o.withHdb()) {
            rdbArgs.addAll(List.of("--tick.rdb.hdb.root=" + dir.resolve("rdb-eod"), "--tick.rdb.hdb.transfer=upload",
                "--tick.rdb.hdb.url=http://127.0.0.1:" + hdbPort, "--tick.rdb.hdb.retry-interval=500ms"));
        }
        rdbArgs.addAll(queryLimits);
        rdb = new ServiceProcess("rdb-service", repo, jar(repo, "rdb-service", version), freePort(), List.of("-Xmx" + o.rdbHeap()),
            rdbArgs, logs.resolve("rdb-service.log"));
        feed = new ServiceProcess("feed-sim", repo, jar(repo, "feed-sim", version), freePort(), List.of("-Xmx1g"),
            List.of("--tick.feed.tp-port=" + tpTcp, "--tick.feed.buffer=" + o.feedBuffer(), "--tick.feed.reconnect-max=1s",
                "--tick.feed.runs-dir=" + dir.resolve("runs")), logs.resolve("feed-sim.log"));
    }

    /** Starts the services (HDB, TP, RDB, feed-sim) and waits until each is healthy. */
    public static ProcessStack start(final Path repo, final Path dir, final Options o) throws IOException, InterruptedException {
        final ProcessStack s = new ProcessStack(repo, dir, o);
        try {
            for (final ServiceProcess p : s.all()) {
                p.start().awaitHealthy(START);
            }
            return s;
        } catch (final IOException | InterruptedException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Builds the service jars that are missing or older than their sources ({@code ./jtick build}).
     *
     * @throws IllegalStateException the build failed (its output is in {@code log})
     */
    public static void build(final Path repo, final Path log) throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        final Process p = new ProcessBuilder("bash", repo.resolve("jtick").toString(), "build").directory(repo.toFile())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("./jtick build failed; see " + log + ":\n" + Files.readString(log));
        }
    }

    private List<ServiceProcess> all() {
        final List<ServiceProcess> out = new ArrayList<>();
        if (hdb != null) {
            out.add(hdb);
        }
        out.add(tp);
        out.add(rdb);
        out.add(feed);
        return out;
    }

    public ServiceProcess tp() {
        return tp;
    }

    public ServiceProcess rdb() {
        return rdb;
    }

    public ServiceProcess hdb() {
        return hdb;
    }

    public ServiceProcess feed() {
        return feed;
    }

    /** {@code kill -9} the service, start it again with the same settings, wait until it is healthy. */
    public void killAndRestart(final ServiceProcess p) throws IOException, InterruptedException {
        p.kill9();
        p.start().awaitHealthy(START);
    }

    // ---------------------------------------------------------------- REST

    /** GET a JSON object or array. */
    public Object get(final ServiceProcess p, final String path) throws IOException, InterruptedException {
        return Json.parse(send(p, "GET", path, null).body());
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> getObject(final ServiceProcess p, final String path) throws IOException, InterruptedException {
        return (Map<String, Object>) get(p, path);
    }

    /** POST a JSON body; the answer's body (a non-2xx answer throws). */
    public String post(final ServiceProcess p, final String path, final String body) throws IOException, InterruptedException {
        final HttpResponse<String> r = send(p, "POST", path, body);
        if (r.statusCode() / 100 != 2) {
            throw new IOException("POST " + path + " to " + p.name() + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    /** A query's answer as CSV, streamed (the caller closes it). */
    public InputStream queryCsv(final ServiceProcess p, final String query) throws IOException, InterruptedException {
        final HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(uri(p, "/api/query")).timeout(Duration.ofMinutes(30))
            .header("Content-Type", "application/json").header("Accept", "text/csv").POST(HttpRequest.BodyPublishers.ofString(query))
            .build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            try (InputStream in = r.body()) {
                throw new IOException("query on " + p.name() + " answered " + r.statusCode() + ": " + new String(in.readAllBytes()));
            }
        }
        return r.body();
    }

    private static HttpResponse<String> send(final ServiceProcess p, final String method, final String path, final String body)
        throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(p, path)).timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(final ServiceProcess p, final String path) {
        return URI.create("http://127.0.0.1:" + p.httpPort() + path);
    }

    /** A number in a JSON object, following the keys ({@code "writeDown", "undelivered"} ...). */
    public static long number(final Object json, final String... keys) {
        Object v = json;
        for (final String k : keys) {
            v = ((Map<?, ?>) v).get(k);
        }
        return v instanceof Number n ? n.longValue() : 0;
    }

    /** Waits for {@code condition} (polled every 100 ms, exceptions count as false) until the deadline. */
    public static void await(final String what, final Duration timeout, final Check condition) throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (condition.test()) {
                    return;
                }
            } catch (final Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what + (last == null ? "" : ": " + last));
            }
            Thread.sleep(100);
        }
    }

    /** A condition that may call services. */
    @FunctionalInterface
    public interface Check {
        boolean test() throws Exception;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String version(final Path repo) throws IOException {
        try (Stream<Path> s = Files.list(repo.resolve("tp-service/target"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("tp-service-.+\\.jar") && !n.endsWith("-plain.jar"))
                .map(n -> n.substring("tp-service-".length(), n.length() - ".jar".length())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no tp-service jar under " + repo.resolve("tp-service/target")
                    + ": ./jtick build first"));
        }
    }

    private static Path jar(final Path repo, final String service, final String version) {
        final Path jar = repo.resolve(service).resolve("target").resolve(service + "-" + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("missing " + jar + ": ./jtick build first");
        }
        return jar;
    }

    private static List<String> concat(final List<String> a, final List<String> b) {
        final List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        for (final ServiceProcess p : List.of(feed, rdb, tp)) {
            p.close();
        }
        if (hdb != null) {
            hdb.close();
        }
    }
}
