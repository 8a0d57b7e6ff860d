package io.jtick.bench.pipeline;

import io.jtick.lab.profiling.ProfilingRun;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsSettings;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tick path against its peers, in one run and on the same rows: jtick (feed → tickerplant with
 * its Chronicle journal → RDB subscribers over loopback), raw Chronicle Queue (appender → tailers)
 * and Apache Kafka (producer → consumers through a KRaft broker in its own JVM, {@code kafka}, or
 * through three, the topic replicated to all with {@code acks=all} and {@code min.insync.replicas=2},
 * {@code kafka-rf3}), each with one and with four subscribers that all receive every row. Two phases:
 * as fast as possible ({@code --rows} rows in updates of {@code --r} rows: rows/s from the first
 * counted send to the last row at the slowest subscriber), then paced ({@code --latency-rate}
 * updates/s of {@code --latency-r} rows for {@code --latency-seconds}): feed→subscriber latency, the
 * frame's feed time to the subscriber's receive time, over every subscriber, and feed→acknowledgement
 * latency, the feed time to the moment the feed learns the update is taken for good (jtick's FEED_ACK,
 * sent after every update when paced; Kafka's producer callback), for the systems that acknowledge.
 * CPU per update counts this JVM and the system's own processes (Kafka's brokers). Every subscriber
 * checks that each row arrived exactly once and in order (the int64 {@code size} column carries the
 * row number) and, by default, inserts the update into an RDB table, as jtick's RDB does. Prints a
 * table per run, the medians and the ratios jtick/peer (jtick-cluster3/kafka-rf3 once it runs), the
 * targets and one JSON line; exits 1 when any run lost, duplicated or reordered a row.
 *
 * <pre>
 * ./jtick bench-pipeline                                         # every system, both phases
 * ./jtick bench-pipeline --systems jtick --latency-rate 0        # jtick alone, throughput only
 * ./jtick bench-pipeline --systems kafka,kafka-rf3,jtick --subscribers 1   # replicated Kafka beside the others
 * ./jtick bench-pipeline --rows 300000 --r 1 --rate 10000        # one paced run per system (old latency check)
 * </pre>
 */
public final class PipelineBenchmark {
    /** jtick-v1: jtick with a protocol 1 feed (not numbered), only when asked for by name. */
    static final List<String> SYSTEMS = List.of("jtick", "jtick-unix", "chronicle", "kafka", "jtick-cluster3", "kafka-rf3");
    static final List<String> KNOWN = List.of("jtick", "jtick-v1", "chronicle", "kafka", "jtick-cluster3", "kafka-rf3", "jtick-tls",
        "jtick-tls-openssl", "jtick-unix");
    /**
     * Brokers of the Kafka cluster each Kafka system runs on, started once for every run (a cluster
     * takes seconds to start) and each run on a topic of its own. A replicated jtick
     * ({@code jtick-cluster3}: three TP nodes in cluster mode) starts its nodes per run like
     * {@code jtick}: it goes into {@link #KNOWN}, {@link #create} and, when its nodes run as processes,
     * reports their pids as {@link PipelineSystem#processes()}; the report already compares it with
     * {@code kafka-rf3} ({@link PipelineReport#PAIRS}).
     */
    static final Map<String, Integer> KAFKA_BROKERS = Map.of("kafka", 1, "kafka-rf3", 3);
    /**
     * How long jtick's event loops poll before they block ({@code tick.tp.idle-spin} on the tickerplant; {@code --spin-micros}):
     * 0, Netty's default, as tp-service's; the Chronicle system's tailers spin and yield before they park.
     */
    static final int DEFAULT_SPIN_MICROS = 0;

    private PipelineBenchmark() {
    }

    /** Command-line options. */
    public record Options(List<String> systems, List<Integer> subscribers, long rows, int r, int rate, long warmup,
                          int latencyRate, int latencySeconds, int latencyWarmupSeconds, int latencyR, int ex, int syms,
                          int batchBytes, boolean insert, int repeat, long jitWarmupRows, int jitRounds, Path dir, int spinMicros) {
        public static Options parse(final String[] args) {
            List<String> systems = SYSTEMS;
            List<Integer> subscribers = List.of(1, 4);
            long rows = 10_000_000;
            int r = 100;
            int rate = 0;
            long warmup = -1;
            int latencyRate = 10_000;
            int latencySeconds = 20;
            int latencyWarmupSeconds = 5;
            int latencyR = 1;
            int ex = 0;
            int syms = 100;
            int batchBytes = 64 * 1024;
            boolean insert = true;
            int repeat = 1;
            long jitWarmupRows = -1;
            int jitRounds = 10;
            Path dir = null;
            int spinMicros = DEFAULT_SPIN_MICROS;
            for (int i = 0; i < args.length; i++) {
                final String a = args[i];
                if ("-h".equals(a) || "--help".equals(a)) {
                    throw new IllegalArgumentException(usage());
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + a + "\n" + usage());
                }
                final String v = args[++i];
                switch (a) {
                    case "--systems":
                        systems = List.of(v.split(","));
                        break;
                    case "--subscribers":
                        subscribers = Arrays.stream(v.split(",")).map(Integer::parseInt).toList();
                        break;
                    case "--rows":
                        rows = Long.parseLong(v);
                        break;
                    case "--r":
                        r = Integer.parseInt(v);
                        break;
                    case "--rate":
                        rate = Integer.parseInt(v);
                        break;
                    case "--warmup":
                        warmup = Long.parseLong(v);
                        break;
                    case "--latency-rate":
                        latencyRate = Integer.parseInt(v);
                        break;
                    case "--latency-seconds":
                        latencySeconds = Integer.parseInt(v);
                        break;
                    case "--latency-warmup-seconds":
                        latencyWarmupSeconds = Integer.parseInt(v);
                        break;
                    case "--latency-r":
                        latencyR = Integer.parseInt(v);
                        break;
                    case "--ex":
                        ex = Integer.parseInt(v);
                        break;
                    case "--syms":
                        syms = Integer.parseInt(v);
                        break;
                    case "--batch-bytes":
                        batchBytes = Integer.parseInt(v);
                        break;
                    case "--sink":
                        if (!"rdb".equals(v) && !"check".equals(v)) {
                            throw new IllegalArgumentException("--sink is rdb or check [sink=" + v + "]");
                        }
                        insert = "rdb".equals(v);
                        break;
                    case "--repeat":
                        repeat = Integer.parseInt(v);
                        break;
                    case "--jit-warmup":
                        jitWarmupRows = Long.parseLong(v);
                        if (jitWarmupRows < 0) {
                            throw new IllegalArgumentException("--jit-warmup rows >= 0 [jit-warmup=" + v + "]");
                        }
                        break;
                    case "--jit-rounds":
                        jitRounds = Integer.parseInt(v);
                        break;
                    case "--dir":
                        dir = Path.of(v);
                        break;
                    case "--spin-micros":
                        spinMicros = Integer.parseInt(v);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            return new Options(systems, subscribers, rows, r, rate, warmup, latencyRate, latencySeconds, latencyWarmupSeconds,
                latencyR, ex, syms, batchBytes, insert, repeat, jitWarmupRows < 0 ? rows : jitWarmupRows, jitRounds, dir, spinMicros)
                .validate();
        }

        Options validate() {
            for (final String s : systems) {
                if (!KNOWN.contains(s)) {
                    throw new IllegalArgumentException("unknown system [system=" + s + ", known=" + KNOWN + "]");
                }
            }
            if (subscribers.isEmpty() || subscribers.stream().anyMatch(n -> n < 1 || n > 64)) {
                throw new IllegalArgumentException("subscribers are 1..64 [subscribers=" + subscribers + "]");
            }
            if (rate < 0 || latencyRate < 0 || latencySeconds < 1 || latencyWarmupSeconds < 0 || latencyR < 1 || ex < 0
                || syms < 1 || repeat < 1 || jitWarmupRows < 0 || jitRounds < 1 || spinMicros < 0) {
                throw new IllegalArgumentException("need rate, latency-rate, ex >= 0; latency-seconds, latency-r, syms, "
                    + "repeat, jit-rounds >= 1; latency-warmup-seconds >= 0");
            }
            phases();
            return this;
        }

        /** The phases to run: a paced run alone when {@code --rate} is given, else throughput then latency. */
        List<Phase> phases() {
            final List<Phase> out = new ArrayList<>();
            if (rate > 0) {
                final long w = warmup >= 0 ? warmup : Math.min(rows / 5, 10L * rate * r);
                out.add(new Phase(Phase.LATENCY, rows, r, rate, w / r * r, batchBytes));
                return out;
            }
            final long w = warmup >= 0 ? warmup : Math.min(rows / 5, 2_000_000L);
            out.add(new Phase(Phase.THROUGHPUT, rows, r, 0, w / r * r, batchBytes));
            if (latencyRate > 0) {
                final long updates = (long) latencyRate * latencySeconds;
                final long warm = (long) latencyRate * latencyWarmupSeconds;
                out.add(new Phase(Phase.LATENCY, updates * latencyR, latencyR, latencyRate, warm * latencyR, batchBytes));
            }
            return out;
        }

        static String usage() {
            return "usage: PipelineBenchmark [--systems jtick,chronicle,kafka,kafka-rf3 (also jtick-v1: a protocol 1 feed; jtick-unix:"
                + " feed and subscribers on the TP's unix socket)]"
                + " [--subscribers 1,4]"
                + " [--rows N (10000000)]"
                + " [--r rows/update (100)] [--warmup rows (rows/5, max 2M)] [--latency-rate updates/s (10000; 0 = no latency"
                + " phase)] [--latency-seconds S (20)] [--latency-warmup-seconds S (5)] [--latency-r rows/update (1)]"
                + " [--rate updates/s: only one paced run of --rows rows] [--sink rdb|check (rdb)] [--repeat N (1)]"
                + " [--jit-warmup rows (--rows; 0 = none): untimed rounds of every system first, each this many rows as fast"
                + " as possible and, with a latency phase, one paced second, until the compilers took under "
                + JitWarmup.SETTLED_PERCENT + "% of the CPU of a round]"
                + " [--jit-rounds N (10): at most this many of those rounds]"
                + " [--ex extra float columns (0)] [--syms N (100)] [--batch-bytes B (65536)] [--dir parent of temp dirs]"
                + " [--spin-micros us (" + DEFAULT_SPIN_MICROS + "): jtick's event loops (feed, tickerplant, subscribers) poll this"
                + " long before they block; 0 = block at once]";
        }
    }

    /**
     * One run of one system.
     *
     * @param seconds            first counted send to the last row at the slowest subscriber
     * @param feedToAck          feed → acknowledgement latency of the counted updates; null when the system
     *                           acknowledges nothing (Chronicle, jtick-v1) or the phase is not paced
     * @param cpuMicrosPerUpdate CPU time per counted update by thread role, this process, the system's own
     *                           processes (Kafka's brokers) and their total
     * @param exactlyOnceInOrder every subscriber received rows 0 .. warm-up + rows − 1, each once, in order
     *                           (and its table holds exactly those)
     */
    public record RunResult(String system, int subscribers, Phase phase, int repeat, double seconds, double rowsPerSecond,
                            Percentiles feedToSubscriber, Percentiles feedToAck, long[] subscriberRows, long orderErrors,
                            boolean exactlyOnceInOrder, List<Percentiles> internals, Map<String, Double> cpuMicrosPerUpdate, String error) {
        boolean ok() {
            return exactlyOnceInOrder && error == null;
        }
    }

    public static void main(final String[] args) throws Exception {
        // Kafka's clients log every configuration at INFO: keep their warnings only (a -D on the command line wins)
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        }
        final Options o;
        try {
            o = Options.parse(args);
        } catch (final IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        final String loadStart = ProfilingRun.loadAverage();
        final List<RunResult> results = run(o, res -> System.out.print(PipelineReport.run(res)));
        final String loadEnd = ProfilingRun.loadAverage();
        System.out.print(PipelineReport.summary(o, results, loadStart, loadEnd));
        System.out.println(PipelineReport.json(o, results, loadStart, loadEnd));
        if (results.stream().anyMatch(res -> !res.ok())) {
            System.exit(1);
        }
    }

    /** Runs every phase × subscriber count × system, {@code repeat} times, handing each result to {@code each}. */
    public static List<RunResult> run(final Options o, final java.util.function.Consumer<RunResult> each) throws Exception {
        final SchemaRegistry schemas = SchemaRegistry.builtIn(o.ex());
        final List<RunResult> out = new ArrayList<>();
        final Map<String, KafkaCluster> clusters = new LinkedHashMap<>();
        if (o.dir() != null) {
            Files.createDirectories(o.dir());
        }
        try {
            for (final String name : o.systems()) {
                final Integer brokers = KAFKA_BROKERS.get(name);
                if (brokers != null && !clusters.containsKey(name)) {
                    clusters.put(name, KafkaCluster.start(o.dir(), brokers));
                }
            }
            if (o.jitWarmupRows() > 0) {
                // the code every system shares (feed, receiver, RDB insert) is compiled before anything is timed, so the
                // first system of the first round does not pay the JIT for the others; rounds until compilation is done
                out.addAll(JitWarmup.run(o, name -> create(name, schemas, o, clusters), each));
            }
            for (int rep = 1; rep <= o.repeat(); rep++) {
                // each repeat starts with the next system, so no system always runs first (or last) in a round
                final List<String> order = new ArrayList<>(o.systems());
                java.util.Collections.rotate(order, -(rep - 1));
                for (final Phase phase : o.phases()) {
                    for (final int subs : o.subscribers()) {
                        for (final String name : order) {
                            final PipelineSystem system = create(name, schemas, o, clusters);
                            final RunResult res = runOne(system, subs, phase, o, rep);
                            out.add(res);
                            each.accept(res);
                            // the subscribers' tables of this run go before the next one starts
                            System.gc();
                        }
                    }
                }
            }
        } finally {
            closeAll(clusters.values());
        }
        return out;
    }

    /** Closes every cluster, even when one fails to; then throws the first failure. */
    private static void closeAll(final Iterable<KafkaCluster> clusters) throws Exception {
        Exception first = null;
        for (final KafkaCluster c : clusters) {
            try {
                c.close();
            } catch (final Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static PipelineSystem create(final String name, final SchemaRegistry schemas, final Options o,
                                         final Map<String, KafkaCluster> clusters) {
        final TableSchema trade = schemas.get("trade");
        switch (name) {
            case "jtick":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, true).spin(o.spinMicros());
            case "jtick-v1":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, false).spin(o.spinMicros());
            case "jtick-tls":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, true).spin(o.spinMicros())
                    .tls(TlsSettings.Provider.JDK);
            case "jtick-tls-openssl":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, true).spin(o.spinMicros())
                    .tls(TlsSettings.Provider.OPENSSL);
            case "jtick-unix":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, true).spin(o.spinMicros()).unixSocket();
            case "jtick-cluster3":
                return new JtickPipelineSystem(schemas, o.insert(), o.dir(), NanoClock.SYSTEM, true, 3).spin(o.spinMicros());
            case "chronicle":
                return new ChronicleSystem(trade, o.insert(), o.dir(), NanoClock.SYSTEM);
            case "kafka":
            case "kafka-rf3":
                return new KafkaSystem(name, trade, o.insert(), NanoClock.SYSTEM, clusters.get(name));
            default:
                throw new IllegalArgumentException("unknown system [system=" + name + "]");
        }
    }

    /** One run: start, warm up, reset latencies, send the counted rows, wait for every subscriber, check. */
    static RunResult runOne(final PipelineSystem system, final int subscribers, final Phase phase, final Options o,
                            final int repeat) throws Exception {
        final long total = phase.totalRows();
        final List<Receiver> receivers = new ArrayList<>();
        try (system) {
            for (int i = 0; i < subscribers; i++) {
                receivers.add(system.newReceiver(total));
            }
            system.start(phase, receivers);
            final Feed feed = new Feed(phase, system.schema, o.syms(), system.clock);
            final long warm = phase.warmupRows();
            if (warm > 0) {
                receivers.forEach(r -> r.target(warm));
                feed.send(system, 0, warm);
                for (final Receiver r : receivers) {
                    r.await(warm, phase.timeoutMillis(warm), system::failure);
                }
                final AckLatency acks = system.acks();
                if (acks != null) {
                    acks.await(warm / phase.r(), phase.timeoutMillis(warm), system::failure);
                    acks.reset();
                }
                receivers.forEach(Receiver::resetLatency);
                system.resetInternals();
            }
            receivers.forEach(r -> r.target(total));
            final CpuTimes cpuStart = CpuTimes.now(system.processes());
            final long start = System.nanoTime();
            feed.send(system, warm, phase.rows());
            for (final Receiver r : receivers) {
                r.await(total, phase.timeoutMillis(phase.rows()), system::failure);
            }
            final AckLatency acks = system.acks();
            if (acks != null) {
                acks.await(total / phase.r(), phase.timeoutMillis(phase.rows()), system::failure);
            }
            final Map<String, Double> cpu = CpuTimes.now(system.processes()).microsPerUpdateSince(cpuStart,
                phase.rows() / phase.r());
            long done = start;
            final Histogram all = new Histogram(3);
            final long[] rows = new long[subscribers];
            long orderErrors = 0;
            boolean ok = true;
            String error = system.failure();
            for (int i = 0; i < subscribers; i++) {
                final Receiver r = receivers.get(i);
                done = Math.max(done, r.doneNanos());
                all.add(r.latency());
                rows[i] = r.rows();
                orderErrors += r.orderErrors();
                ok &= r.exactlyOnceInOrder(total);
                if (error == null && r.firstError() != null) {
                    error = "subscriber " + i + ": " + r.firstError();
                }
            }
            final double seconds = (done - start) / 1e9;
            final Percentiles ack = acks == null ? null : Percentiles.of("feed->ack", acks.histogram());
            return new RunResult(system.name(), subscribers, phase, repeat, seconds, phase.rows() / seconds,
                Percentiles.of("feed->subscriber", all), ack, rows, orderErrors, ok, system.internals(), cpu, error);
        } catch (final Exception | Error e) {
            final long[] rows = receivers.stream().mapToLong(Receiver::rows).toArray();
            return new RunResult(system.name(), subscribers, phase, repeat, 0, 0, null, null, rows, 0, false, List.of(), Map.of(),
                e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
