package io.jtick.bench.pipeline;

import io.jtick.bench.TickerplantBenchmark;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An Apache Kafka broker in KRaft mode (broker and controller in one process) in its own JVM on
 * 127.0.0.1, two free ports, its log directory in a temp directory that {@link #close} deletes.
 * Started the way Kafka's scripts do it: {@code kafka.tools.StorageTool format --standalone}, then
 * {@code kafka.Kafka server.properties} with the heap and GC flags of {@code kafka-server-start.sh}
 * ({@code -Xmx1G -Xms1G}, G1 with a 20 ms pause goal). The classpath is {@code target/kafka-lib}
 * beside the benchmark's jar or classes (filled by the build), or {@code -Djtick.kafka.lib}.
 * Settings other than the ports, the directory and single-node replication are Kafka's defaults,
 * except socket buffers of 1 MiB (jtick's own). The log is flushed by the OS (Kafka's default, like
 * Chronicle's page cache).
 */
final class KafkaBroker implements AutoCloseable {
    /** JVM flags of Kafka's {@code kafka-server-start.sh} and {@code kafka-run-class.sh}. */
    static final List<String> JVM_FLAGS = List.of("-Xmx1G", "-Xms1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
        "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final long START_TIMEOUT_MILLIS = 90_000;

    private final Path dir;
    private final Process process;
    private final Thread killer;
    private final String bootstrap;
    private Admin admin;

    private KafkaBroker(final Path dir, final Process process, final Thread killer, final String bootstrap) {
        this.dir = dir;
        this.process = process;
        this.killer = killer;
        this.bootstrap = bootstrap;
    }

    /** Formats a fresh log directory under {@code root} (null: the system temp directory) and starts the broker. */
    static KafkaBroker start(final Path root) throws IOException, InterruptedException {
        final Path lib = libDir();
        final Path dir = root == null ? Files.createTempDirectory("jtick-kafka") : Files.createTempDirectory(root, "jtick-kafka");
        final int port = freePort();
        final int controllerPort = freePort();
        final Path props = dir.resolve("server.properties");
        Files.writeString(props, serverProperties(dir.resolve("data"), port, controllerPort));
        final String classpath = lib.resolve("*").toString();
        final Path log = dir.resolve("broker.log");
        final List<String> format = command(classpath, List.of("-Xmx256m"), "kafka.tools.StorageTool", "format", "--standalone",
            "-t", Uuid.randomUuid().toString(), "-c", props.toString());
        final Process fmt = new ProcessBuilder(format).redirectErrorStream(true).redirectOutput(dir.resolve("format.log").toFile())
            .start();
        if (!fmt.waitFor(60, TimeUnit.SECONDS) || fmt.exitValue() != 0) {
            fmt.destroyForcibly();
            final String out = tail(dir.resolve("format.log"));
            TickerplantBenchmark.deleteTree(dir);
            throw new IllegalStateException("kafka storage format failed [lib=" + lib + "]: " + out);
        }
        final Process p = new ProcessBuilder(command(classpath, JVM_FLAGS, "kafka.Kafka", props.toString()))
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        final Thread killer = new Thread(p::destroyForcibly, "kafka-broker-killer");
        Runtime.getRuntime().addShutdownHook(killer);
        final String bootstrap = "127.0.0.1:" + port;
        final KafkaBroker broker = new KafkaBroker(dir, p, killer, bootstrap);
        try {
            awaitListening(p, port);
            broker.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
            broker.awaitReady();
            return broker;
        } catch (final RuntimeException | InterruptedException e) {
            final String out = tail(log);
            broker.close();
            throw new IllegalStateException("kafka broker did not start [bootstrap=" + bootstrap + "]: " + e.getMessage()
                + "\n--- broker log (tail) ---\n" + out, e);
        }
    }

    /** Waits until the broker's port accepts connections (before any client starts retrying and logging). */
    private static void awaitListening(final Process p, final int port) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (true) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (final IOException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("not listening [port=" + port + ", alive=" + p.isAlive() + "]");
                }
            }
            Thread.sleep(100);
        }
    }

    private void awaitReady() throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker process exited [exitCode=" + process.exitValue() + "]");
            }
            try {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (final ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no broker answered within " + START_TIMEOUT_MILLIS + " ms: " + e, e);
                }
            }
            Thread.sleep(200);
        }
    }

    String bootstrap() {
        return bootstrap;
    }

    /** Creates a topic of one partition (total order, like one tickerplant), replication factor 1. */
    void createTopic(final String topic) throws InterruptedException, ExecutionException, TimeoutException {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    /** Deletes a topic and its log (frees the disk between runs). */
    void deleteTopic(final String topic) throws InterruptedException, ExecutionException, TimeoutException {
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }

    /** The broker's pid, for the report. */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            if (admin != null) {
                admin.close(java.time.Duration.ofSeconds(5));
            }
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            try {
                Runtime.getRuntime().removeShutdownHook(killer);
            } catch (final IllegalStateException ignored) {
                // the JVM is already shutting down: the hook runs anyway
            }
        } finally {
            TickerplantBenchmark.deleteTree(dir);
        }
    }

    static String serverProperties(final Path data, final int port, final int controllerPort) {
        return String.join("\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.bootstrap.servers=127.0.0.1:" + controllerPort,
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "inter.broker.listener.name=PLAINTEXT",
            "log.dirs=" + data,
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            "socket.send.buffer.bytes=1048576",
            "socket.receive.buffer.bytes=1048576",
            "");
    }

    private static List<String> command(final String classpath, final List<String> flags, final String main,
                                        final String... args) {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(main);
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** {@code -Djtick.kafka.lib}, else {@code kafka-lib} beside the jar or classes directory this class came from. */
    static Path libDir() {
        final String prop = System.getProperty("jtick.kafka.lib");
        final Path lib;
        if (prop != null) {
            lib = Path.of(prop);
        } else {
            try {
                final Path here = Path.of(KafkaBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                lib = here.getParent().resolve("kafka-lib");
            } catch (final URISyntaxException e) {
                throw new IllegalStateException("cannot locate the benchmark's jar: " + e.getMessage(), e);
            }
        }
        final String[] broker = lib.toFile().list((d, n) -> n.startsWith("kafka_2.13-"));
        if (broker == null || broker.length == 0) {
            throw new IllegalStateException("no Kafka broker classpath [dir=" + lib + "]: build bench-jmh "
                + "(./mvnw -B -pl bench-jmh -am package -DskipTests fills target/kafka-lib) or set -Djtick.kafka.lib");
        }
        return lib;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static String tail(final Path file) {
        try {
            final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (final IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
