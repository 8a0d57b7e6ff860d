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
 *
 * <p>With {@code tpNodes} of 3 (or 5...) the tickerplant is a cluster ({@code tick.tp.cluster.*},
 * docs/ha.md): node {@code k} journals under {@code tp-<k>/journal}, keeps its consensus state and log
 * under {@code tp-<k>/cluster} and its media driver in {@code /dev/shm}; the RDB and the feed are given
 * every node ({@code tick.rdb.tp-addresses}, {@code tick.feed.tp-addresses}) and follow the leader.
 */
public final class ProcessStack implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** A loaded 2-core machine takes minutes to start three Spring Boot JVMs at once. */
    private static final Duration START = Duration.ofMinutes(10);

    /**
     * @param withHdb     start an HDB and let the RDB send it its end of day
     * @param rdbHeap     the RDB's -Xmx (it holds the day in memory)
     * @param feedBuffer  feed-sim's buffer of unacknowledged updates ({@code tick.feed.buffer})
     * @param tpNodes     1: one tickerplant; 3, 5...: a tickerplant cluster of that many nodes
     */
    public record Options(boolean withHdb, String rdbHeap, String feedBuffer, int tpNodes) {
        public Options {
            if (tpNodes < 1 || tpNodes > 1 && tpNodes % 2 == 0) {
                throw new IllegalArgumentException("tickerplant nodes: 1, or an odd number for a cluster [tpNodes=" + tpNodes + "]");
            }
        }

        public static Options defaults() {
            return new Options(true, "2g", "256MB", 1);
        }
    }

    private final Path dir;
    private final List<ServiceProcess> tps = new ArrayList<>();
    private final List<Path> aeronDirs = new ArrayList<>();
    private final ServiceProcess rdb;
    private final ServiceProcess hdb;
    private final ServiceProcess feed;

    private ProcessStack(final Path repo, final Path dir, final Options o) throws IOException {
        this.dir = dir;
        final String version = version(repo);
        final Path logs = dir.resolve("log");
        final List<String> queryLimits = List.of("--tick.query.max-rows=2000000000", "--tick.query.max-bytes=64GB");
        final String eod = java.time.LocalTime.now(java.time.ZoneOffset.UTC).plusHours(12).withNano(0).toString();
        final List<String> tpCommon = List.of("--tick.tp.eod-time=" + eod, "--tick.tp.zone=UTC");
        final List<String> addresses = new ArrayList<>();
        if (o.tpNodes() == 1) {
            final int tpTcp = freePort();
            addresses.add("127.0.0.1:" + tpTcp);
            tps.add(new ServiceProcess("tp-service", repo, jar(repo, "tp-service", version), freePort(), List.of("-Xmx1g"),
                concat(List.of("--tick.tp.port=" + tpTcp, "--tick.tp.journal-dir=" + journalRoot(0, false)), tpCommon),
                logs.resolve("tp-service.log")));
        } else {
            final List<String> members = new ArrayList<>();
            final int[] tcp = new int[o.tpNodes()];
            final int[] udp = freeUdpBases(o.tpNodes());
            for (int k = 0; k < o.tpNodes(); k++) {
                tcp[k] = freePort();
                addresses.add("127.0.0.1:" + tcp[k]);
                members.add(k + "=127.0.0.1:" + tcp[k] + ":0:" + udp[k]);
            }
            final Path shm = Path.of("/dev/shm");
            final String tag = "jtick-soak-" + Integer.toHexString(dir.toAbsolutePath().toString().hashCode());
            for (int k = 0; k < o.tpNodes(); k++) {
                final Path aeron = Files.isDirectory(shm) && Files.isWritable(shm) ? shm.resolve(tag + "-" + k)
                    : dir.resolve("tp-" + k).resolve("aeron");
                aeronDirs.add(aeron);
                tps.add(new ServiceProcess("tp-service-" + k, repo, jar(repo, "tp-service", version), freePort(), List.of("-Xmx1g"),
                    concat(List.of("--tick.tp.port=" + tcp[k], "--tick.tp.kdb-port=-1", "--tick.tp.name=tp-" + k,
                        "--tick.tp.journal-dir=" + journalRoot(k, true), "--tick.tp.max-frame-length=1MB",
                        "--tick.tp.cluster.enabled=true", "--tick.tp.cluster.member-id=" + k, "--tick.tp.cluster.start-timeout=10m",
                        "--tick.tp.cluster.members=" + String.join(",", members),
                        "--tick.tp.cluster.dir=" + dir.resolve("tp-" + k).resolve("cluster"), "--tick.tp.cluster.aeron-dir=" + aeron),
                        tpCommon), logs.resolve("tp-service-" + k + ".log")));
            }
        }
        final String tpList = String.join(",", addresses);
        final String firstPort = addresses.get(0).substring(addresses.get(0).indexOf(':') + 1);
        final int hdbPort = freePort();
        hdb = !o.withHdb() ? null : new ServiceProcess("hdb-service", repo, jar(repo, "hdb-service", version), hdbPort,
            List.of("-Xmx1g"), concat(List.of("--tick.hdb.root=" + dir.resolve("hdb"), "--tick.hdb.tiering.enabled=false"),
            queryLimits), logs.resolve("hdb-service.log"));
        final List<String> rdbArgs = new ArrayList<>(List.of("--tick.rdb.tp-port=" + firstPort, "--tick.rdb.reconnect-delay=200ms"));
        if (o.tpNodes() > 1) {
            rdbArgs.add("--tick.rdb.tp-addresses=" + tpList);
        }
        if (o.withHdb()) {
            rdbArgs.addAll(List.of("--tick.rdb.hdb.root=" + dir.resolve("rdb-eod"), "--tick.rdb.hdb.transfer=upload",
                "--tick.rdb.hdb.url=http://127.0.0.1:" + hdbPort, "--tick.rdb.hdb.retry-interval=500ms"));
        }
        rdbArgs.addAll(queryLimits);
        rdb = new ServiceProcess("rdb-service", repo, jar(repo, "rdb-service", version), freePort(), List.of("-Xmx" + o.rdbHeap()),
            rdbArgs, logs.resolve("rdb-service.log"));
        final List<String> feedArgs = new ArrayList<>(List.of("--tick.feed.tp-port=" + firstPort, "--tick.feed.buffer=" + o.feedBuffer(),
            "--tick.feed.reconnect-max=1s", "--tick.feed.runs-dir=" + dir.resolve("runs")));
        if (o.tpNodes() > 1) {
            feedArgs.add("--tick.feed.tp-addresses=" + tpList);
        }
        feed = new ServiceProcess("feed-sim", repo, jar(repo, "feed-sim", version), freePort(), List.of("-Xmx1g"), feedArgs,
            logs.resolve("feed-sim.log"));
    }

    /**
     * Starts the services (HDB, TP, RDB, feed-sim) and waits until each is healthy. The nodes of a
     * tickerplant cluster start all at once: each is healthy only once a leader is elected. The RDB and
     * feed-sim start together once the TP is healthy (a JVM takes long to start on a loaded machine).
     */
    public static ProcessStack start(final Path repo, final Path dir, final Options o) throws IOException, InterruptedException {
        final ProcessStack s = new ProcessStack(repo, dir, o);
        try {
            if (s.hdb != null) {
                s.hdb.start().awaitHealthy(START);
            }
            for (final ServiceProcess tp : s.tps) {
                tp.start();
            }
            for (final ServiceProcess tp : s.tps) {
                tp.awaitHealthy(START);
            }
            s.rdb.start();
            s.feed.start();
            s.rdb.awaitHealthy(START);
            s.feed.awaitHealthy(START);
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

    /** The tickerplant (node 0 of a cluster). */
    public ServiceProcess tp() {
        return tps.get(0);
    }

    /** Every tickerplant node, by member id (one without a cluster). */
    public List<ServiceProcess> tps() {
        return List.copyOf(tps);
    }

    /** Where node {@code k} journals (the only TP's journal without a cluster). */
    public Path journalRoot(final int k) {
        return journalRoot(k, tps.size() > 1);
    }

    private Path journalRoot(final int k, final boolean cluster) {
        return cluster ? dir.resolve("tp-" + k).resolve("journal") : dir.resolve("journal");
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

    // ---------------------------------------------------------------- cluster

    /** {@code GET /api/cluster} of a node. */
    public Map<String, Object> cluster(final ServiceProcess tp) throws IOException, InterruptedException {
        return getObject(tp, "/api/cluster");
    }

    /**
     * The node that leads and takes feeds now, as the running (not paused) nodes see it: one that says
     * it is the leader and accepts feeds, and that every other running node names as leader; null when
     * there is none yet (an election, or the nodes do not agree yet).
     */
    public ServiceProcess leaderNow() {
        ServiceProcess leader = null;
        int leaderId = -1;
        final List<Integer> named = new ArrayList<>();
        for (final ServiceProcess tp : tps) {
            if (!tp.alive() || tp.paused()) {
                continue;
            }
            final Map<String, Object> c;
            try {
                c = cluster(tp);
            } catch (final IOException | RuntimeException e) {
                return null;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            named.add((int) number(c, "leaderId"));
            if ("leader".equals(c.get("role")) && Boolean.TRUE.equals(c.get("acceptsFeeds"))) {
                leader = tp;
                leaderId = (int) number(c, "memberId");
            }
        }
        if (leader == null) {
            return null;
        }
        for (final int id : named) {
            if (id != leaderId) {
                return null;
            }
        }
        return leader;
    }

    /** Waits until a node leads and every running node names it ({@link #leaderNow}). */
    public ServiceProcess awaitLeader(final Duration timeout) throws InterruptedException {
        final ServiceProcess[] found = new ServiceProcess[1];
        await("a leader every running node names", timeout, () -> (found[0] = leaderNow()) != null);
        return found[0];
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
        await(what, timeout, 100, condition);
    }

    /** Waits for {@code condition} (polled every {@code pollMillis}, exceptions count as false) until the deadline. */
    public static void await(final String what, final Duration timeout, final long pollMillis, final Check condition)
        throws InterruptedException {
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
            Thread.sleep(pollMillis);
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

    /** Port bases of {@code n} runs of five free UDP ports (Aeron's ingress, consensus, log, catch-up, archive). */
    private static int[] freeUdpBases(final int n) throws IOException {
        final int[] out = new int[n];
        int found = 0;
        for (int base = 20_000 + (int) (ProcessHandle.current().pid() % 400) * 50; found < n && base < 60_000; base += 10) {
            if (udpFree(base, 5)) {
                out[found++] = base;
            }
        }
        if (found < n) {
            throw new IOException("no free UDP ports for the cluster nodes' Aeron");
        }
        return out;
    }

    private static boolean udpFree(final int base, final int count) {
        for (int p = base; p < base + count; p++) {
            try (java.net.DatagramSocket s = new java.net.DatagramSocket(p, InetAddress.getLoopbackAddress())) {
                s.getLocalPort();
            } catch (final IOException e) {
                return false;
            }
        }
        return true;
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

    /** Stops the tickerplant nodes only (SIGTERM): their journals can be read afterwards. */
    public void closeTickerplants() throws InterruptedException {
        for (final ServiceProcess tp : tps) {
            tp.close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        feed.close();
        rdb.close();
        closeTickerplants();
        if (hdb != null) {
            hdb.close();
        }
        for (final Path a : aeronDirs) {
            if (a.startsWith("/dev/shm")) {
                try {
                    io.jtick.core.hdb.store.PartitionStore.deleteRecursively(a);
                } catch (final IOException e) {
                    System.err.println("could not delete " + a + ": " + e);
                }
            }
        }
    }
}
