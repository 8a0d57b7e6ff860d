package io.jtick.image;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The images as an operator gets them: {@code ./jtick images} twice (the same digests both times),
 * each image at most 250 MB, then each one unpacked with {@code umoci} and its service started from
 * the image's own root file system, entrypoint, environment, user and working directory (see
 * {@link ImageRootfs}) until {@code /actuator/health} answers UP (and its liveness and readiness
 * groups, the Helm chart's probes, answer 200); the image's health check command
 * passes against it and fails against a port where nothing listens. Then the four together as the
 * Helm chart runs them keep an end of day (see the third test). Needs root (chroot, mounts) and
 * umoci (Debian package; installed here with apt-get when missing, as .ci/run does).
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServiceImagesIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path OUT = ROOT.resolve("target/images");
    private static final long MAX_IMAGE_BYTES = 250L * 1000 * 1000;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Path work;
    private static Map<String, String[]> firstBuild;

    @BeforeAll
    static void needRootAndUmoci() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "needs Linux (chroot, mount namespaces)");
        Assumptions.assumeTrue(ImageRootfs.uidOf(ProcessHandle.current().pid()) == 0,
            "needs root: the images are started with chroot(2) and /proc mounted in a private mount namespace");
        if (!onPath("umoci")) {
            final int rc = exec(List.of("apt-get", "install", "-y", "-q", "umoci"), Duration.ofMinutes(5), null);
            Assumptions.assumeTrue(rc == 0 && onPath("umoci"), "umoci is missing and apt-get install umoci failed");
        }
        work = Files.createTempDirectory("jtick-images-it");
    }

    @AfterAll
    static void cleanUp() throws IOException {
        if (work != null) {
            ImageCommand.deleteTree(work);
        }
    }

    @Test
    @Order(1)
    void shouldBuildTheSameImagesTwice() throws Exception {
        firstBuild = buildImages();
        assertThat(firstBuild).containsOnlyKeys("tp-service", "rdb-service", "hdb-service", "feed-sim");
        final Map<String, String[]> second = buildImages();
        for (final Map.Entry<String, String[]> e : firstBuild.entrySet()) {
            assertThat(second.get(e.getKey())[2]).as("digest of %s, second build", e.getKey()).isEqualTo(e.getValue()[2]);
            assertThat(Long.parseLong(e.getValue()[3])).as("compressed size of %s", e.getKey()).isLessThanOrEqualTo(MAX_IMAGE_BYTES);
            assertThat(Long.parseLong(e.getValue()[4])).as("unpacked size of %s", e.getKey()).isLessThanOrEqualTo(MAX_IMAGE_BYTES);
        }
    }

    @Test
    @Order(2)
    void shouldStartEveryServiceFromItsImage() throws Exception {
        Assumptions.assumeTrue(firstBuild != null, "the images were not built");
        for (final String name : firstBuild.keySet()) {
            final ImageRootfs image = ImageRootfs.unpack(OUT.resolve(name), version(name), work.resolve(name));
            assertThat(image.uid()).as("user of %s", name).isNotZero();
            assertThat(image.args().get(0)).isEqualTo("/opt/java/bin/java");
            assertThat(image.args()).contains("--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dchronicle.analytics.disable=true");
            final List<String> health = new ArrayList<>();
            image.imageConfig().get("Healthcheck").get("Test").forEach(t -> health.add(t.asString()));
            assertThat(health.get(0)).isEqualTo("CMD");

            final int port = freePort();
            final Map<String, String> env = new LinkedHashMap<>();
            env.put("SERVER_ADDRESS", "127.0.0.1");
            env.put("SERVER_PORT", Integer.toString(port));
            env.put("TICK_TP_HOST", "127.0.0.1");
            env.put("TICK_TP_PORT", Integer.toString(freePort()));
            env.put("TICK_TP_KDB_PORT", Integer.toString(freePort()));
            env.put("TICK_RDB_TP_PORT", Integer.toString(freePort()));
            env.put("TICK_FEED_TP_PORT", Integer.toString(freePort()));
            final Path log = work.resolve(name + ".log");
            final Process p = image.start(image.args(), env, log);
            try {
                awaitUp(p, port, log, name);
                for (final String probe : List.of("liveness", "readiness")) {
                    final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/actuator/health/" + probe)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as("%s /actuator/health/%s: %s", name, probe, r.body()).isEqualTo(200);
                }
                assertThat(ImageRootfs.uidOf(p.pid())).as("the service runs as the image's user").isEqualTo(image.uid());
                assertThat(image.run(health.subList(1, health.size()), env, work.resolve(name + "-health.log")))
                    .as("the image's health check against the running %s", name).isZero();
                final Map<String, String> nothing = new LinkedHashMap<>(env);
                nothing.put("SERVER_PORT", Integer.toString(freePort()));
                assertThat(image.run(health.subList(1, health.size()), nothing, work.resolve(name + "-health-down.log")))
                    .as("the health check where nothing listens").isNotZero();
            } finally {
                stop(p);
            }
        }
    }

    /**
     * The four images together as the Helm chart runs them, each from its own root file system (so
     * the RDB and the HDB share no directory): API token on (guard always, one token), the feed
     * publishing to the TP, the RDB subscribed and sending its end of day to the HDB
     * ({@code transfer=upload}). An end of day without the token is refused; with it, the day lands
     * in the HDB and answers its query.
     */
    @Test
    @Order(3)
    void shouldKeepTheDayWhenTheImagesRunTogetherAsTheChartRunsThem() throws Exception {
        Assumptions.assumeTrue(firstBuild != null, "the images were not built");
        final String token = "image-stack-t0ken-0123456789abcdef";
        final int tick = freePort();
        final Map<String, Integer> http = new LinkedHashMap<>();
        for (final String name : List.of("tp-service", "hdb-service", "rdb-service", "feed-sim")) {
            http.put(name, freePort());
        }
        final Map<String, Map<String, String>> env = new LinkedHashMap<>();
        for (final String name : http.keySet()) {
            final Map<String, String> e = new LinkedHashMap<>();
            e.put("SERVER_ADDRESS", "127.0.0.1");
            e.put("SERVER_PORT", Integer.toString(http.get(name)));
            e.put("TICK_API_GUARD", "always");
            e.put("TICK_API_TOKEN", token);
            env.put(name, e);
        }
        env.get("tp-service").putAll(Map.of("TICK_TP_HOST", "127.0.0.1", "TICK_TP_PORT", Integer.toString(tick),
            "TICK_TP_KDB_PORT", Integer.toString(freePort())));
        env.get("hdb-service").put("TICK_HDB_ROOT", "/var/jtick/hdb");
        env.get("rdb-service").putAll(Map.of("TICK_RDB_TP_PORT", Integer.toString(tick), "TICK_RDB_HDB_ROOT", "/var/jtick/eod",
            "TICK_RDB_HDB_URL", "http://127.0.0.1:" + http.get("hdb-service"), "TICK_RDB_HDB_TRANSFER", "upload"));
        env.get("feed-sim").putAll(Map.of("TICK_FEED_TP_PORT", Integer.toString(tick), "TICK_FEED_AUTOSTART", "true",
            "TICK_FEED_R", "10", "TICK_FEED_T", "10"));
        final List<Process> running = new ArrayList<>();
        try {
            for (final String name : http.keySet()) {
                final ImageRootfs image = ImageRootfs.unpack(OUT.resolve(name), version(name), work.resolve("stack-" + name));
                final Path log = work.resolve("stack-" + name + ".log");
                final Process p = image.start(image.args(), env.get(name), log);
                running.add(p);
                awaitUp(p, http.get(name), log, name);
            }
            final int rdb = http.get("rdb-service");
            awaitTrue("the RDB holds rows the feed sent through the TP", () -> json(get(rdb, "/api/status")).path("rows").asLong() > 0);
            final URI eod = URI.create("http://127.0.0.1:" + http.get("tp-service") + "/api/eod");
            assertThat(HTTP.send(HttpRequest.newBuilder(eod).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).as("end of day without the token").isEqualTo(401);
            final HttpResponse<String> ended = HTTP.send(HttpRequest.newBuilder(eod).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ended.statusCode()).as(ended.body()).isEqualTo(200);
            final String day = ended.body().replaceAll(".*\"ended\":\"([0-9-]+)\".*", "$1");
            final int hdb = http.get("hdb-service");
            awaitTrue("the HDB holds the day " + day, () -> get(hdb, "/api/partitions").contains("\"date\":\"" + day + "\""));
            final JsonNode status = json(get(rdb, "/api/status"));
            assertThat(status.path("writeDown").path("transfer").asString()).isEqualTo("upload");
            assertThat(status.path("endOfDayFailures").asInt()).as(status.toString()).isZero();
            final long written = status.path("writeDown").path("lastWrite").path("rows").asLong();
            final HttpResponse<String> q = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hdb + "/api/query"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"table\":\"trade\",\"date\":\""
                    + day + "\",\"select\":{\"n\":{\"count\":\"*\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(q.statusCode()).as(q.body()).isEqualTo(200);
            final long inHdb = json(q.body()).path("rows").path(0).path(0).asLong();
            assertThat(inHdb).as("trades of the day in the HDB").isPositive();
            assertThat(written).as("rows the RDB wrote at end of day, trades and quotes").isGreaterThanOrEqualTo(inHdb);
            assertThat(Files.exists(work.resolve("stack-rdb-service/rootfs/var/jtick/eod").resolve(day)))
                .as("the RDB's copy of the day is gone once the HDB has it").isFalse();
        } finally {
            for (int i = running.size() - 1; i >= 0; i--) {
                stop(running.get(i));
            }
        }
    }

    private static JsonNode json(final String body) {
        return body.isEmpty() ? JSON.missingNode() : JSON.readTree(body);
    }

    private static String get(final int port, final String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        } catch (final IOException e) {
            return "";
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static void awaitTrue(final String what, final java.util.function.BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 120s: " + what);
            }
            Thread.sleep(250);
        }
    }

    /** {@code ./jtick images}; name → the line of target/images/images.txt (name, reference, digest, compressed, unpacked). */
    private static Map<String, String[]> buildImages() throws Exception {
        final Path log = Files.createTempFile("jtick-images", ".log");
        final int rc = exec(List.of(ROOT.resolve("jtick").toString(), "images"), Duration.ofMinutes(20), log);
        assertThat(rc).as("./jtick images failed:%n%s", Files.readString(log)).isZero();
        Files.delete(log);
        final Map<String, String[]> out = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(OUT.resolve("images.txt"))) {
            final String[] f = line.split("\t");
            out.put(f[0], f);
        }
        return out;
    }

    private static String version(final String name) {
        final String ref = firstBuild.get(name)[1];
        return ref.substring(ref.lastIndexOf(':') + 1);
    }

    private static void awaitUp(final Process p, final int port, final Path log, final String name) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            assertThat(p.isAlive()).as("%s exited (%s) before it was healthy:%n%s", name, p.isAlive() ? "" : p.exitValue(),
                Files.readString(log)).isTrue();
            try {
                final HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"status\":\"UP\"")) {
                    return;
                }
            } catch (final IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError(name + " not UP on port " + port + " within 180s:\n" + Files.readString(log));
    }

    private static void stop(final Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int exec(final List<String> cmd, final Duration timeout, final Path log) throws Exception {
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(ROOT.toFile());
        if (log != null) {
            pb.redirectOutput(log.toFile());
        } else {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        final Process p = pb.start();
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out after " + timeout + ": " + cmd);
        }
        return p.exitValue();
    }

    private static boolean onPath(final String tool) {
        for (final String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
