package io.jtick.bench.pipeline;

import io.jtick.bench.TickerplantBenchmark;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.cluster.ClusterNode;
import io.jtick.core.cluster.ClusterSettings;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.bench.BenchTls;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.Transport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * jtick: a {@link FeedPublisher} → {@link TickerplantServer} (zero-latency, Chronicle journal in a
 * temp directory) → one {@link TickClient} per subscriber, each on its own event loop, feeding a
 * {@link RealtimeDatabase} (or, with the {@code check} sink, only the receiver's check), all over
 * 127.0.0.1 in this JVM. The TP's and the first RDB's histograms are reported as internals. The feed
 * is a numbered one (protocol 2: acknowledged, resendable), as feed-sim's; {@code jtick-v1} is the same
 * with a protocol 1 feed, to measure what numbering costs in the same run.
 *
 * <p>Acknowledgements: as fast as possible, the TP acknowledges a numbered feed as tp-service does by
 * default (every 1,000 updates or 100 ms); paced, after every update ({@code feedAckUpdates=1}), and
 * the feed's {@link FeedPublisher#onAcknowledged} listener times each update's FEED_ACK
 * ({@link AckLatency}): the update was journalled (the Chronicle append, no fsync).
 *
 * <p>{@code jtick-cluster3}: the same, but the tickerplant is three nodes of a cluster on Aeron
 * Cluster (docs/ha.md) in this JVM, each with its own driver, archive, consensus module, service and
 * tickerplant thread, over UDP on loopback: the feed sends to the leader, whose FEED_ACK means
 * committed on a majority, and the subscribers read from the leader. Everything shares this
 * machine's cores with the feed and the subscribers; the CPU per update counts all of it.
 *
 * <p>{@code jtick-tls}, {@code jtick-tls-openssl}: {@code jtick} with {@code tick.tls.mode=required} on the
 * tickerplant's port, the feed and every subscriber connecting with TLS (the server's certificate and name verified),
 * JDK or OpenSSL provider ({@link #tls}): what TLS costs the same run's rows/s and latency.
 *
 * <p>{@code jtick-unix}: {@code jtick} with the feed and every subscriber on the tickerplant's unix domain socket
 * ({@code tick.tp.unix-socket}, {@link #unixSocket}) instead of its TCP port: what the TCP stack costs on one machine.
 */
final class JtickPipelineSystem extends PipelineSystem {
    static final List<String> TP_LATENCIES = List.of("tick.tp.upd", "tick.tp.log", "tick.tp.pub", "tick.tp.flush");
    static final List<String> RDB_LATENCIES = List.of("tick.rdb.recv", "tick.rdb.upd");

    private final SchemaRegistry schemas;
    private final Path root;
    private final boolean numbered;
    private final int clusterNodes;
    private final List<ClusterNode> nodes = new ArrayList<>();
    private final List<TickerplantServer> nodeServers = new ArrayList<>();
    private TickMetrics tpMetrics = new TickMetrics();
    private final List<TickMetrics> rdbMetrics = new ArrayList<>();
    private final List<Subscriber> subscribers = new ArrayList<>();
    private final List<TickClient> clients = new ArrayList<>();
    private Path dir;
    private TickerplantServer server;
    private FeedPublisher feed;
    private AckLatency acks;
    private TlsSettings.Provider tls;
    private boolean unix;
    private long spinNanos;
    /** The subscribers' and the feed's event loops, made here so that they spin as the tickerplant's does. */
    private final List<EventLoopGroup> groups = new ArrayList<>();

    /**
     * @param root   parent of the journal's temp directory, null for the system's temp directory
     * @param insert true: each subscriber is an RDB; false: the receiver's check only
     */
    JtickPipelineSystem(final SchemaRegistry schemas, final boolean insert, final Path root, final NanoClock clock,
                        final boolean numbered) {
        this(schemas, insert, root, clock, numbered, 0);
    }

    /** @param clusterNodes more than 1: the tickerplant is a cluster of that many nodes (a numbered feed) */
    JtickPipelineSystem(final SchemaRegistry schemas, final boolean insert, final Path root, final NanoClock clock,
                        final boolean numbered, final int clusterNodes) {
        super(schemas.get("trade"), insert, clock);
        this.schemas = schemas;
        this.root = root;
        this.numbered = numbered || clusterNodes > 1;
        this.clusterNodes = clusterNodes;
    }

    /**
     * Every event loop of the system (feed, tickerplant, subscribers) polls {@code micros} before it blocks
     * ({@link Transport#newGroup(int, String, long)}; the tickerplant's {@code tick.tp.idle-spin}); 0 blocks at once.
     */
    JtickPipelineSystem spin(final int micros) {
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(micros);
        return this;
    }

    /** Every connection with TLS through {@code provider} (before the run). */
    JtickPipelineSystem tls(final TlsSettings.Provider provider) {
        this.tls = provider;
        return this;
    }

    /** The feed and every subscriber on the tickerplant's unix socket (before the run). */
    JtickPipelineSystem unixSocket() {
        this.unix = true;
        return this;
    }

    @Override
    String name() {
        if (unix) {
            return "jtick-unix";
        }
        if (tls != null) {
            return tls == TlsSettings.Provider.OPENSSL ? "jtick-tls-openssl" : "jtick-tls";
        }
        return clusterNodes > 1 ? "jtick-cluster" + clusterNodes : numbered ? "jtick" : "jtick-v1";
    }

    /** The receiver of one more subscriber: an RDB with its own metrics; {@link #start} connects it. */
    @Override
    Receiver newReceiver(final long capacityRows) {
        final TickMetrics metrics = new TickMetrics();
        rdbMetrics.add(metrics);
        final Subscriber sub = new Subscriber(insert
            ? new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), (int) Math.min(capacityRows, 1 << 28), Set.of()) : null);
        final Receiver receiver = new Receiver(sub::insert, insert ? sub::table : null, clock);
        sub.receiver = receiver;
        subscribers.add(sub);
        return receiver;
    }

    @Override
    void start(final Phase phase, final List<Receiver> receivers) throws Exception {
        dir = root == null ? Files.createTempDirectory("jtick-pipeline") : Files.createTempDirectory(root, "jtick-pipeline");
        final TickerplantSettings defaults = TickerplantSettings.defaults(dir).withPort(0);
        final TickerplantSettings settings = phase.paced() && numbered
            ? defaults.withFeedAcks(1, defaults.feedAckInterval()) : defaults;
        server = clusterNodes > 1 ? startCluster(settings.feedAckUpdates(), settings.feedAckInterval())
            : new TickerplantServer(settings, schemas, clock, tpMetrics).tls(tls == null ? TlsSettings.OFF : BenchTls.server(tls))
                .idleSpin(java.time.Duration.ofNanos(spinNanos)).unixSocket(unix ? dir.resolve("tp.sock") : null).start();
        final List<Address> tp = List.of(unix ? Address.unix(dir.resolve("tp.sock").toString()) : new Address("127.0.0.1", server.port()));
        final TlsClient tlsClient = TlsClient.of(tls == null ? null : BenchTls.client(tls));
        for (int i = 0; i < subscribers.size(); i++) {
            final Subscriber sub = subscribers.get(i);
            final EventLoopGroup loop = Transport.newGroup(1, "tick-client-bench-rdb-" + i, spinNanos);
            groups.add(loop);
            final TickClient client = new TickClient(TickClient.Settings.of(tp, "bench-rdb-" + i), sub,
                sub::lastSequence, loop, clock).tls(tlsClient);
            clients.add(client);
            client.start();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (final TickClient c : clients) {
            while (!c.isSubscribed()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("subscriber did not subscribe within 10 s [name=" + c.settings().name() + "]");
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
        final EventLoopGroup feedLoop = Transport.newGroup(1, "feed-bench-feed", spinNanos);
        groups.add(feedLoop);
        feed = new FeedPublisher(FeedPublisher.Settings.of(tp, "bench-feed").withNumbered(numbered), feedLoop)
            .tls(tlsClient);
        feed.connect(5_000);
        if (phase.paced() && numbered) {
            // the numbers the feed gives from here on; room for every update of the run unacknowledged (up to 4M)
            acks = AckLatency.numbered(clock, feed.stats().lastNumber() + 1,
                (int) Math.min(1 << 22, phase.totalRows() / phase.r()));
            feed.onAcknowledged(acks::acknowledgedThrough);
        }
    }

    /**
     * Starts every node at once (each waits for a leader) and returns the leader's tickerplant once it
     * takes feeds; its metrics become the reported internals. Frames of up to 1 MB keep each node's
     * Aeron log buffers at 16 MB.
     */
    private TickerplantServer startCluster(final int feedAckUpdates, final java.time.Duration feedAckInterval) throws Exception {
        final List<ClusterSettings.Member> members = ClusterSettings.loopback(clusterNodes);
        final List<TickMetrics> metrics = new ArrayList<>();
        final List<Thread> starters = new ArrayList<>();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (final ClusterSettings.Member m : members) {
            final TickMetrics mm = new TickMetrics();
            final TickerplantSettings ts = TickerplantSettings.defaults(dir.resolve("journal-" + m.id())).withPort(m.tpPort())
                .withMaxFrameLength(1 << 20).withFeedAcks(feedAckUpdates, feedAckInterval);
            final ClusterNode node = new ClusterNode(ClusterSettings.of(m.id(), members, dir.resolve("cluster-" + m.id())), ts, mm);
            final TickerplantServer s = new TickerplantServer(ts, schemas, clock, mm).replicated(node);
            metrics.add(mm);
            nodes.add(node);
            nodeServers.add(s);
            final Thread t = new Thread(() -> {
                try {
                    s.start();
                    node.start(s);
                } catch (final Throwable e) {
                    failures.add(e);
                }
            }, "bench-cluster-start-" + m.id());
            starters.add(t);
            t.start();
        }
        for (final Thread t : starters) {
            t.join(TimeUnit.SECONDS.toMillis(90));
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("cluster did not start: " + failures.get(0), failures.get(0));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            for (int k = 0; k < nodes.size(); k++) {
                if (nodes.get(k).acceptsFeeds()) {
                    tpMetrics = metrics.get(k);
                    return nodeServers.get(k);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no cluster leader took feeds within 30 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    ByteBufAllocator alloc() {
        return feed.alloc();
    }

    @Override
    boolean awaitWritable(final long timeoutNanos) {
        return feed.awaitWritable(timeoutNanos);
    }

    @Override
    boolean send(final ByteBuf frames, final int count) {
        final AckLatency a = acks;
        if (a != null) {
            for (int k = 0, at = frames.readerIndex(); k < count; k++, at += frames.getIntLE(at)) {
                a.sent(frames.getLongLE(at + FrameDescriptor.FEED_TIME_OFFSET));
            }
        }
        return feed.send(frames);
    }

    @Override
    AckLatency acks() {
        return acks;
    }

    @Override
    String failure() {
        final FeedPublisher f = feed;
        if (f != null && f.errorsReceived() > 0) {
            return "feed got " + f.errorsReceived() + " error(s): " + f.lastError();
        }
        for (final Subscriber s : subscribers) {
            if (s.rdb != null && (s.rdb.status().rejected() > 0 || s.rdb.status().duplicates() > 0)) {
                return "RDB rejected " + s.rdb.status().rejected() + " and dropped " + s.rdb.status().duplicates()
                    + " duplicate update(s)";
            }
        }
        return null;
    }

    @Override
    List<Percentiles> internals() {
        final List<Percentiles> out = new ArrayList<>();
        for (final String n : TP_LATENCIES) {
            out.add(Percentiles.of(n, tpMetrics.latency(n, n).snapshot()));
        }
        if (clusterNodes > 1) {
            out.add(Percentiles.of("tick.tp.cluster.commit", tpMetrics.latency("tick.tp.cluster.commit", "").snapshot()));
        }
        if (insert && !rdbMetrics.isEmpty()) {
            for (final String n : RDB_LATENCIES) {
                out.add(Percentiles.of(n + "[0]", rdbMetrics.get(0).latency(n, n).snapshot()));
            }
        }
        return out;
    }

    @Override
    void resetInternals() {
        tpMetrics.resetLatencies();
        rdbMetrics.forEach(TickMetrics::resetLatencies);
    }

    @Override
    public void close() throws Exception {
        try {
            if (feed != null) {
                feed.close();
            }
            for (final TickClient c : clients) {
                c.close();
            }
            if (nodes.isEmpty() && server != null) {
                server.close();
            }
            for (int k = 0; k < nodes.size(); k++) {
                nodes.get(k).close();
                nodeServers.get(k).close();
            }
        } finally {
            for (final EventLoopGroup g : groups) {
                g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            if (dir != null) {
                TickerplantBenchmark.deleteTree(dir);
            }
        }
    }

    /** One subscription: the RDB (when inserting) behind the receiver's check. */
    private static final class Subscriber implements TickListener {
        private final RealtimeDatabase rdb;
        private Receiver receiver;
        private volatile long lastSequence;
        private TableSchema lastSchema;

        Subscriber(final RealtimeDatabase rdb) {
            this.rdb = rdb;
        }

        long lastSequence() {
            return rdb != null ? rdb.lastSequence() : lastSequence;
        }

        TableSegment table() {
            return rdb.table("trade");
        }

        void insert(final UpdateDecoder update, final long receiveNanos) {
            if (rdb != null) {
                rdb.onUpdate(lastSchema, update, receiveNanos);
            }
        }

        @Override
        public void onSubscribed(final ControlFrames.Subscribed subscribed) {
            if (rdb != null) {
                rdb.onSubscribed(subscribed);
            }
        }

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            lastSchema = schema;
            receiver.onUpdate(update, receiveNanos);
            lastSequence = update.sequence();
        }

        @Override
        public void onCatchUpDone(final long sequence) {
            if (rdb != null) {
                rdb.onCatchUpDone(sequence);
            }
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            if (rdb != null) {
                rdb.onEndOfDay(epochDay, sequence);
            }
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            if (rdb != null) {
                rdb.onError(code, message);
            }
        }

        @Override
        public void onDisconnected() {
            if (rdb != null) {
                rdb.onDisconnected();
            }
        }
    }
}
