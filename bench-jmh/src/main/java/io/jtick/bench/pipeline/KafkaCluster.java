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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * An Apache Kafka cluster in KRaft mode on 127.0.0.1: {@code n} nodes, each broker and controller in
 * one process, each in its own JVM with two free ports (client and controller) and its own log
 * directory, all under one temp directory that {@link #close} deletes. The controllers form a static
 * quorum ({@code controller.quorum.voters}, every node a voter). Started the way Kafka's scripts do
 * it: {@code kafka.tools.StorageTool format} of every node with one cluster id, then
 * {@code kafka.Kafka server.properties} with the heap and GC flags of {@code kafka-server-start.sh}
 * ({@code -Xmx1G -Xms1G}, G1 with a 20 ms pause goal). The classpath is {@code target/kafka-lib}
 * beside the benchmark's jar or classes (filled by the build), or {@code -Djtick.kafka.lib}.
 *
 * <p>Topics get one partition replicated to every node (replication factor {@code n}) and
 * {@code min.insync.replicas} a majority of them (1 of 1, 2 of 3): with {@code acks=all} a record is
 * acknowledged once a majority holds it, what a three-node jtick cluster promises. Settings other
 * than the ports, the directories and the replication are Kafka's defaults, except socket buffers of
 * 1 MiB (jtick's own). The log is flushed by the OS (Kafka's default, like Chronicle's page cache).
 */
final class KafkaCluster implements AutoCloseable {
    /** JVM flags of Kafka's {@code kafka-server-start.sh} and {@code kafka-run-class.sh}. */
    static final List<String> JVM_FLAGS = List.of("-Xmx1G", "-Xms1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
        "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final long START_TIMEOUT_MILLIS = 90_000;

    /** One node: its ports, its directory and, once started, its process. */
    private static final class Node {
        final int id;
        final int port;
        final int controllerPort;
        final Path dir;
        volatile Process process;

        Node(final int id, final int port, final int controllerPort, final Path dir) {
            this.id = id;
            this.port = port;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        Path log() {
            return dir.resolve("broker.log");
        }
    }

    private final Path dir;
    private final List<Node> nodes;
    private final Thread killer;
    private final String bootstrap;
    private Admin admin;

    private KafkaCluster(final Path dir, final List<Node> nodes) {
        this.dir = dir;
        this.nodes = nodes;
        this.killer = new Thread(() -> processes().forEach(Process::destroyForcibly), "kafka-cluster-killer");
        this.bootstrap = nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
    }

    /**
     * Formats fresh log directories under {@code root} (null: the system temp directory) and starts
     * {@code size} nodes; returns once every broker is registered with the controllers.
     */
    static KafkaCluster start(final Path root, final int size) throws IOException, InterruptedException {
        if (size < 1) {
            throw new IllegalArgumentException("a Kafka cluster needs at least one node [size=" + size + "]");
        }
        final Path lib = libDir();
        final Path dir = root == null ? Files.createTempDirectory("jtick-kafka") : Files.createTempDirectory(root, "jtick-kafka");
        final int[] ports = freePorts(2 * size);
        final List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            final Path nodeDir = Files.createDirectories(dir.resolve("node-" + (i + 1)));
            nodes.add(new Node(i + 1, ports[2 * i], ports[2 * i + 1], nodeDir));
        }
        final String voters = nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
        final KafkaCluster cluster = new KafkaCluster(dir, nodes);
        Runtime.getRuntime().addShutdownHook(cluster.killer);
        try {
            final String classpath = lib.resolve("*").toString();
            final String clusterId = Uuid.randomUuid().toString();
            final List<Process> formats = new ArrayList<>();
            for (final Node n : nodes) {
                final Path props = n.dir.resolve("server.properties");
                Files.writeString(props, serverProperties(n.id, voters, n.dir.resolve("data"), n.port, n.controllerPort, size));
                formats.add(new ProcessBuilder(command(classpath, List.of("-Xmx256m"), "kafka.tools.StorageTool", "format", "-t",
                    clusterId, "-c", props.toString())).redirectErrorStream(true)
                    .redirectOutput(n.dir.resolve("format.log").toFile()).start());
            }
            for (int i = 0; i < size; i++) {
                final Process fmt = formats.get(i);
                if (!fmt.waitFor(60, TimeUnit.SECONDS) || fmt.exitValue() != 0) {
                    formats.forEach(Process::destroyForcibly);
                    throw new IllegalStateException("kafka storage format failed [node=" + nodes.get(i).id + ", lib=" + lib + "]: "
                        + tail(nodes.get(i).dir.resolve("format.log")));
                }
            }
            for (final Node n : nodes) {
                n.process = new ProcessBuilder(command(classpath, JVM_FLAGS, "kafka.Kafka",
                    n.dir.resolve("server.properties").toString())).redirectErrorStream(true).redirectOutput(n.log().toFile()).start();
            }
            for (final Node n : nodes) {
                awaitListening(n);
            }
            cluster.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
            cluster.awaitReady();
            return cluster;
        } catch (final IOException | RuntimeException | InterruptedException e) {
            final StringBuilder logs = new StringBuilder();
            for (final Node n : nodes) {
                if (n.process != null) {
                    logs.append("\n--- node ").append(n.id).append(" log (tail) ---\n").append(tail(n.log()));
                }
            }
            cluster.close();
            throw new IllegalStateException("kafka cluster did not start [bootstrap=" + cluster.bootstrap + "]: " + e.getMessage()
                + logs, e);
        }
    }

    /** Waits until the node's client port accepts connections (before any client starts retrying and logging). */
    private static void awaitListening(final Node n) throws InterruptedException {
        final Process p = n.process;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (true) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), n.port)) {
                return;
            } catch (final IOException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("not listening [node=" + n.id + ", port=" + n.port + ", alive=" + p.isAlive()
                        + "]");
                }
            }
            Thread.sleep(100);
        }
    }

    /** Waits until every broker is registered (the controllers have a quorum and have seen them all). */
    private void awaitReady() throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        String last = "no answer yet";
        while (true) {
            for (final Node n : nodes) {
                if (!n.process.isAlive()) {
                    throw new IllegalStateException("broker process exited [node=" + n.id + ", exitCode="
                        + n.process.exitValue() + "]");
                }
            }
            try {
                final int registered = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size();
                if (registered == nodes.size()) {
                    return;
                }
                last = registered + " of " + nodes.size() + " brokers registered";
            } catch (final ExecutionException | TimeoutException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster was not ready within " + START_TIMEOUT_MILLIS + " ms: " + last);
            }
            Thread.sleep(200);
        }
    }

    /** Every broker's client address, comma-separated. */
    String bootstrap() {
        return bootstrap;
    }

    /** Nodes, and the replication factor of its topics. */
    int size() {
        return nodes.size();
    }

    /** A majority of the nodes: the topics' {@code min.insync.replicas}. */
    int minInsyncReplicas() {
        return nodes.size() / 2 + 1;
    }

    /** Creates a topic of one partition (total order, like one tickerplant) on every node, a majority in sync to take a write. */
    void createTopic(final String topic) throws InterruptedException, ExecutionException, TimeoutException {
        final NewTopic t = new NewTopic(topic, 1, (short) nodes.size())
            .configs(Map.of("min.insync.replicas", Integer.toString(minInsyncReplicas())));
        admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
    }

    /** Deletes a topic and its log (frees the disk between runs). */
    void deleteTopic(final String topic) throws InterruptedException, ExecutionException, TimeoutException {
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }

    /** The brokers' pids, node 1 first, for the CPU report. */
    List<Long> pids() {
        return processes().stream().map(Process::pid).toList();
    }

    private List<Process> processes() {
        return nodes.stream().map(n -> n.process).filter(p -> p != null).toList();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            if (admin != null) {
                admin.close(java.time.Duration.ofSeconds(5));
            }
            // all at once: a broker stopping alone waits for the controllers, and the others stop meanwhile
            final List<Process> ps = processes();
            ps.forEach(Process::destroy);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (final Process p : ps) {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
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

    static String serverProperties(final int nodeId, final String voters, final Path data, final int port, final int controllerPort,
                                   final int size) {
        final int rf = size;
        final int minIsr = size / 2 + 1;
        return String.join("\n",
            "process.roles=broker,controller",
            "node.id=" + nodeId,
            "controller.quorum.voters=" + voters,
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "inter.broker.listener.name=PLAINTEXT",
            "log.dirs=" + data,
            "num.partitions=1",
            "default.replication.factor=" + rf,
            "min.insync.replicas=" + minIsr,
            "offsets.topic.replication.factor=" + rf,
            "transaction.state.log.replication.factor=" + rf,
            "transaction.state.log.min.isr=" + minIsr,
            "share.coordinator.state.topic.replication.factor=" + rf,
            "share.coordinator.state.topic.min.isr=" + minIsr,
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
                final Path here = Path.of(KafkaCluster.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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

    /** {@code count} distinct free ports (held open together, so none is handed out twice). */
    private static int[] freePorts(final int count) throws IOException {
        final List<ServerSocket> held = new ArrayList<>();
        try {
            final Set<Integer> ports = new LinkedHashSet<>();
            while (ports.size() < count) {
                final ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                s.setReuseAddress(true);
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return ports.stream().mapToInt(Integer::intValue).toArray();
        } finally {
            for (final ServerSocket s : held) {
                s.close();
            }
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
