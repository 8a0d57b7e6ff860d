package io.jtick.core.replay;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HDB's replay port: consumers connect, send HELLO and REPLAY, and receive the replay
 * ({@link ReplaySession}) in the native wire format, so {@code TickClient} and any subscriber read it
 * as they read a tickerplant. Runs on {@code threads} event-loop threads of its own, as many reader
 * threads (each stream's framing and its windows decoded ahead) and as many decoder threads (a
 * date's compressed columns, beside the reader that enters it); consumers of the
 * same request share one {@link ReplayStream}. {@link #replays()} and {@link #cancel} serve
 * {@code GET/DELETE /api/replays}. Memory per consumer: its outbound buffer up to the high water
 * mark (duplicates of shared frames, or its own frames) plus one pending frame, and, once it reads on
 * its own, one reader's window buffers; per stream: its ring of frames and its reader.
 */
public final class ReplayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayServer.class);
    private static final int RECENT = 20;
    /** Seconds between unmapping the scratch files kept past {@link ScratchPool#KEEP_NANOS}. */
    private static final long SCRATCH_TRIM_SECONDS = 5;

    private final HistoricalDatabase hdb;
    private final ReplaySettings settings;
    private final ReplayCounters counters;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, ReplaySession> active = new ConcurrentHashMap<>();
    private final Deque<ReplayStatus> recent = new ArrayDeque<>();
    private final Map<String, ReplayStream> joinable = new HashMap<>();
    private final Map<Long, ReplayStream> streams = new ConcurrentHashMap<>();
    private EventLoopGroup group;
    private ExecutorService readers;
    /** Threads that help a reader decode a date's compressed columns ({@code hdb-replay-decoder-*}). */
    private ExecutorService decoders;
    /** Where dates' compressed columns are decoded to, kept a while between dates ({@link ScratchPool}). */
    private final ScratchPool scratch;
    private Channel serverChannel;
    private ChannelGroup connections;
    private AccessSettings access = AccessSettings.DEFAULT;
    private final TickMetrics metrics;
    private TlsListener front;

    public ReplayServer(final HistoricalDatabase hdb, final ReplaySettings settings, final TickMetrics metrics) {
        this.hdb = hdb;
        this.settings = settings.validate();
        this.metrics = metrics;
        this.counters = new ReplayCounters(metrics);
        this.front = TlsListener.of(TlsSettings.OFF, "replay", metrics);
        this.scratch = new ScratchPool(this.settings.scratchDir());
        counters.gauges(active::size, streams::size, scratch::keptBytes);
    }

    /**
     * Who may replay (before {@link #start}): a replay is a read, so the HELLO carries the API token of
     * these settings where reads are protected on the port's address (docs/operations.md "Access").
     */
    public ReplayServer access(final AccessSettings settings) {
        this.access = settings.validate();
        return this;
    }

    /**
     * TLS on the replay port (before {@link #start}): {@code required} answers a plaintext consumer with an ERROR frame
     * {@code access-denied} and closes (docs/operations.md "TLS"). Default: {@link TlsSettings#OFF}.
     */
    public ReplayServer tls(final TlsSettings settings) {
        this.front = TlsListener.of(settings, "replay", metrics);
        return this;
    }

    /** Deletes scratch files a crash left (only {@code scratch-*} files: the directory may hold anything else) and binds the port. */
    public ReplayServer start() throws IOException {
        final AccessCheck check = AccessCheck.forListener(access, InetAddress.getByName(settings.host()));
        if (Files.isDirectory(settings.scratchDir())) {
            try (DirectoryStream<Path> left = Files.newDirectoryStream(settings.scratchDir(), "scratch-*")) {
                for (final Path p : left) {
                    Files.deleteIfExists(p);
                }
            }
        }
        group = Transport.newGroup(settings.threads(), "hdb-replay");
        final AtomicLong readerIds = new AtomicLong();
        readers = Executors.newFixedThreadPool(settings.threads(), r -> {
            final Thread t = new Thread(r, "hdb-replay-reader-" + readerIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        final AtomicLong decoderIds = new AtomicLong();
        decoders = Executors.newFixedThreadPool(settings.threads(), r -> {
            final Thread t = new Thread(r, "hdb-replay-decoder-" + decoderIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // unmapping a large file is slow: on a decoder thread, not on the event loop that serves the consumers (and only
        // when something is kept, so that an HDB that never replays starts no decoder thread for it)
        final ExecutorService trimmer = decoders;
        group.next().scheduleAtFixedRate(() -> {
            try {
                if (scratch.keptBytes() > 0) {
                    trimmer.execute(this::trimScratch);
                }
            } catch (final RejectedExecutionException e) {
                // stopping
            }
        }, SCRATCH_TRIM_SECONDS, SCRATCH_TRIM_SECONDS, TimeUnit.SECONDS);
        connections = new DefaultChannelGroup("hdb-replay", GlobalEventExecutor.INSTANCE);
        final ServerBootstrap b = new ServerBootstrap()
            .group(group)
            .channel(Transport.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_SNDBUF, 1 << 20)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(64 * 1024))
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(settings.writeBufferLow(),
                settings.writeBufferHigh()))
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    connections.add(ch);
                    front.install(ch.pipeline(), alloc -> ControlFrames.error(alloc, ErrorCode.ACCESS_DENIED,
                        "TLS is required on this port: connect with TLS [port=replay]"));
                    ReplayAdapter.install(ch.pipeline(), ReplayServer.this, counters, check);
                }
            });
        try {
            serverChannel = b.bind(settings.host(), settings.port()).sync().channel();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException(e);
        } catch (final Exception e) {
            close();
            throw new IOException("cannot listen for replays [host=" + settings.host() + ", port=" + settings.port() + "]: "
                + e.getMessage(), e);
        }
        LOG.info("replay listening [address={}, threads={}, transport={}, access={}]", serverChannel.localAddress(), settings.threads(),
            Transport.isEpoll() ? "epoll" : "nio", check.describe());
        return this;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public ReplaySettings settings() {
        return settings;
    }

    /**
     * Binds a request to the HDB and to the stream of consumers asking the same (event loop of its connection).
     *
     * @throws ReplayException when the HDB refuses it
     */
    ReplaySession open(final Channel channel, final String consumer, final ControlFrames.Replay request) {
        final long id = ids.incrementAndGet();
        synchronized (joinable) {
            final String key = ReplayPlan.keyOf(request, settings);
            final ReplayStream current = key == null ? null : joinable.get(key);
            if (current != null) {
                final ReplaySession s = session(id, channel, consumer, current);
                if (current.join(s)) {
                    active.put(id, s);
                    return s;
                }
            }
        }
        final ReplayPlan plan = ReplayPlan.open(hdb, request, settings, decoders, scratch);
        synchronized (joinable) {
            final ReplayStream current = joinable.get(plan.key);
            if (current != null) {
                final ReplaySession s = session(id, channel, consumer, current);
                if (current.join(s)) {
                    plan.release();
                    active.put(id, s);
                    return s;
                }
            }
            final ReplayStream stream = new ReplayStream(id, plan, counters, readers, PooledByteBufAllocator.DEFAULT,
                () -> streamClosed(plan.key, id), this::readFailed);
            final ReplaySession s = session(id, channel, consumer, stream);
            stream.join(s);
            streams.put(id, stream);
            joinable.put(plan.key, stream);
            active.put(id, s);
            return s;
        }
    }

    private ReplaySession session(final long id, final Channel channel, final String consumer, final ReplayStream stream) {
        return new ReplaySession(id, channel, consumer, stream, counters, this::ended);
    }

    /** A replay met a block that failed its checks: counted as the HDB counts a query's ({@code tick.hdb.corrupt.reads}). */
    private void readFailed(final RuntimeException e) {
        if (e.getCause() instanceof CorruptPartitionException c) {
            hdb.corruptRead(c);
        } else {
            LOG.warn("replay read failed", e);
        }
    }

    private void streamClosed(final String key, final long id) {
        synchronized (joinable) {
            final ReplayStream s = joinable.get(key);
            if (s != null && s.id == id) {
                joinable.remove(key);
            }
        }
        streams.remove(id);
    }

    private void ended(final ReplaySession s) {
        active.remove(s.id);
        synchronized (recent) {
            recent.addFirst(s.status());
            while (recent.size() > RECENT) {
                recent.removeLast();
            }
        }
    }

    /** Running replays, then the last {@value #RECENT} that ended, newest first. */
    public List<ReplayStatus> replays() {
        final List<ReplayStatus> out = new ArrayList<>();
        for (final ReplaySession s : active.values()) {
            out.add(s.status());
        }
        out.sort(Comparator.comparingLong(ReplayStatus::id));
        synchronized (recent) {
            out.addAll(recent);
        }
        return out;
    }

    /** Running replays. */
    public int activeCount() {
        return active.size();
    }

    /** Streams open (consumers of one range share one). */
    public int streamCount() {
        return streams.size();
    }

    /** Stops a running replay: the consumer gets REPLAY_DONE cancelled with {@code why}; false when none runs with that id. */
    public boolean cancel(final long id, final String why) {
        final ReplaySession s = active.get(id);
        if (s == null) {
            return false;
        }
        s.cancel(why);
        return true;
    }

    /** Errors counted for a code (tests and status). */
    public long errors(final io.jtick.core.wire.ErrorCode code) {
        return counters.errors(code);
    }

    /** Cancels every replay (REPLAY_DONE cancelled), closes the port and the connections. */
    @Override
    public void close() {
        for (final ReplaySession s : active.values()) {
            s.cancel("the HDB is stopping");
        }
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (connections != null) {
            connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        for (final ExecutorService pool : new ExecutorService[] {readers, decoders}) {
            if (pool == null) {
                continue;
            }
            pool.shutdown();
            try {
                if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("replay {} did not stop within 10 s", pool == readers ? "readers" : "decoders");
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        scratch.close();
    }

    private void trimScratch() {
        try {
            scratch.trim();
        } catch (final RuntimeException e) {
            LOG.warn("replay scratch trim failed: {}", e.toString());
        }
    }

    /** Bytes of decoded scratch kept mapped for the next replay's dates ({@link ScratchPool}). */
    public long scratchKeptBytes() {
        return scratch.keptBytes();
    }

    /** Scratch files a date was given from those kept, since the start. */
    public long scratchReused() {
        return scratch.reused();
    }
}
