package io.jtick.core.tp;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.client.TickListener;
import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbTextCall;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.Transport;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a {@link Tickerplant} on one Netty event-loop thread (its agent): the listening socket for
 * feeds and subscribers, every connection ({@link TickerplantAdapter}, which also holds the bad-input
 * policy), the publish timer, end-of-day checks, heartbeats and, for a chained TP, the upstream
 * subscription all run there, and so does the kdb+ port when one is configured ({@link #kdb},
 * {@link KdbAdapter}, logins by {@link KdbAccess}).
 * Other threads (REST, metrics) read or change the tickerplant's state
 * through {@link #call}, {@link #status}, {@link #setMode} and {@link #endOfDay}, which run on that
 * thread; {@link #tickerplant()} hands out the object itself for what never changes (settings, schemas).
 */
public final class TickerplantServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TickerplantServer.class);

    private final TickerplantSettings settings;
    private final SchemaRegistry schemas;
    private final NanoClock clock;
    private final TickMetrics metrics;
    private EventLoopGroup group;
    private EventLoop loop;
    private Channel serverChannel;
    private KdbSettings kdb = KdbSettings.OFF;
    private KdbTextCall kdbText;
    private AccessSettings access = AccessSettings.DEFAULT;
    private TlsSettings tls = TlsSettings.OFF;
    private long spinNanos;
    private ReplicatedLog log;
    private Channel kdbChannel;
    private Path unixPath;
    private Channel unixChannel;
    private ChannelGroup connectionsOpen;
    private Tickerplant tp;
    private TickClient upstream;
    private ScheduledFuture<?> timerTask;
    private ScheduledFuture<?> housekeeping;
    private boolean catchUpScheduled;
    private boolean flushScheduled;
    private long lastHeartbeat;

    public TickerplantServer(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                             final TickMetrics metrics) {
        this.settings = settings.validate();
        this.schemas = schemas;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Also listens for kdb+ clients as {@code settings} say (before {@link #start}); off unless called. */
    public TickerplantServer kdb(final KdbSettings settings) {
        this.kdb = settings.validate();
        return this;
    }

    /**
     * How the kdb+ port reads calls sent as q text, feed.q's {@code h"(.u.upd[`trade;(...)])"} (before
     * {@link #start}); without it only r.q's subscription string is understood.
     */
    public TickerplantServer kdbText(final KdbTextCall textCalls) {
        this.kdbText = textCalls;
        return this;
    }

    /**
     * Who may use the feed/subscriber port (before {@link #start}): the API token of these settings,
     * checked in HELLO where the port's address asks for it (docs/operations.md "Access"); a chained
     * tickerplant also presents it upstream. Default: {@link AccessSettings#DEFAULT}.
     */
    public TickerplantServer access(final AccessSettings settings) {
        this.access = settings.validate();
        return this;
    }

    /**
     * TLS on both ports (before {@link #start}; docs/operations.md "TLS"): {@code required} refuses a plaintext feed or
     * subscriber with an ERROR frame {@code access-denied}, a plaintext kdb+ client with a close (kdb+'s way); a
     * chained tickerplant connects upstream with TLS too. Default: {@link TlsSettings#OFF}.
     */
    public TickerplantServer tls(final TlsSettings settings) {
        this.tls = settings.validate();
        return this;
    }

    /**
     * How long the tickerplant thread polls for the next feed read or task after each batch of work before
     * it blocks (before {@link #start}; {@code tick.tp.idle-spin}, {@link Transport#newGroup(int, String, long)}):
     * a steady feed's updates are then taken without a thread wake-up, for up to that much CPU per batch. Default 0.
     */
    public TickerplantServer idleSpin(final Duration spin) {
        if (spin.isNegative()) {
            throw new IllegalArgumentException("idle spin must not be negative [idleSpin=" + spin + "]");
        }
        this.spinNanos = spin.toNanos();
        return this;
    }

    /**
     * Also listens for feeds and subscribers on a unix domain socket at {@code path} (before {@link #start};
     * {@code tick.tp.unix-socket}), as kdb+ does beside its TCP port: the same protocol, access check and
     * pipeline, without the TCP stack between processes of one machine (clients give {@code unix:<path>}). A
     * stale file at the path (no process listening) is replaced; one a live process listens on is refused.
     * The socket has no TLS (its file's permissions guard it), so it cannot be combined with TLS. Null: none.
     */
    public TickerplantServer unixSocket(final Path path) {
        if (path != null) {
            TickerplantAddresses.checkUnixPath("tick.tp.unix-socket", path.toString());
        }
        this.unixPath = path;
        return this;
    }

    /**
     * Cluster mode (before {@link #start}): feeds' updates, end of day and mode changes go to
     * {@code log}, and the tickerplant journals what the log commits ({@link #execute} runs it on the
     * tickerplant thread).
     */
    public TickerplantServer replicated(final ReplicatedLog replicatedLog) {
        if (settings.chained()) {
            throw new IllegalArgumentException("a chained tickerplant cannot be a cluster node [upstream=" + settings.upstreamHost() + ":"
                + settings.upstreamPort() + "]");
        }
        this.log = replicatedLog;
        return this;
    }

    /** Opens the journal, binds the port(s), starts the timers and (chained) the upstream subscription. */
    public TickerplantServer start() throws IOException {
        final AccessCheck check = AccessCheck.forListener(access, InetAddress.getByName(settings.host()));
        group = Transport.newGroup(1, "tickerplant", spinNanos);
        loop = group.next();
        connectionsOpen = new DefaultChannelGroup("tickerplant-connections", loop);
        try {
            tp = loop.submit(() -> new Tickerplant(settings, schemas, clock, PooledByteBufAllocator.DEFAULT, metrics, log)).get();
        } catch (final ExecutionException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        tp.catchUpScheduler(this::scheduleCatchUp);
        tp.counters().backlogGauge(this::totalBacklog);
        try {
            final TlsListener nativeTls = TlsListener.of(tls, "tp", metrics);
            serverChannel = listen("feeds and subscribers", new InetSocketAddress(settings.host(), settings.port()), p -> {
                nativeTls.install(p, TickerplantServer::tlsRequired);
                TickerplantAdapter.install(p, tp, check);
            });
            if (unixPath != null) {
                unixChannel = listen("feeds and subscribers", unixSocketAddress(), p -> TickerplantAdapter.install(p, tp, check));
            }
            if (kdb.enabled()) {
                final KdbAccess logins = KdbAccess.of(kdb, InetAddress.getByName(settings.host()));
                final TlsListener kdbTls = TlsListener.of(tls, "tp-kdb", metrics);
                kdbChannel = listen("kdb+ clients", new InetSocketAddress(settings.host(), kdb.port()), p -> {
                    kdbTls.install(p, null);
                    KdbAdapter.install(p, tp, logins, kdbText);
                });
                LOG.info("kdb+ port listening [address={}, logins={}, tls={}]", kdbChannel.localAddress(), logins.describe(),
                    kdbTls.describe());
            }
        } catch (final IOException | RuntimeException e) {
            close();
            throw e;
        }
        scheduleTimer(tp.timerNanos());
        housekeeping = loop.scheduleAtFixedRate(this::housekeeping, 50, 50, TimeUnit.MILLISECONDS);
        if (settings.chained()) {
            startUpstream();
        }
        LOG.info("tickerplant listening [address={}, unixSocket={}, transport={}, chained={}, access={}, tls={}]",
            serverChannel.localAddress(), unixPath == null ? "off" : unixPath, Transport.isEpoll() ? "epoll" : "nio",
            settings.chained() ? TickerplantAddresses.format(settings.upstream()) : "no", check.describe(),
            tls.enabled() ? tls.mode() : "off");
        return this;
    }

    /**
     * Binds one of the tickerplant's ports on {@code tick.tp.host}: the same socket options for both
     * (the native and the kdb+ one), each connection counted and closed with the TP, its pipeline from
     * {@code install}.
     */
    /**
     * The connections' write-buffer water marks: 1 MiB low, 4 MiB high, lower where the subscriber backlog limit is small (at most
     * half of it, the low mark a quarter of the high), so that a subscriber past the limit is never writable and one served from
     * the journal starts reading it, and turns live, well under the limit.
     */
    static WriteBufferWaterMark waterMark(final long maxSubscriberBacklog) {
        final int high = (int) Math.min(4 << 20, maxSubscriberBacklog / 2);
        return new WriteBufferWaterMark(Math.min(1 << 20, high / 4), high);
    }

    private Channel listen(final String what, final SocketAddress at, final Consumer<ChannelPipeline> install) throws IOException {
        final boolean unix = at instanceof DomainSocketAddress;
        final ServerBootstrap b = new ServerBootstrap()
            .group(group)
            .channel(unix ? Transport.unixServerChannel() : Transport.serverChannel())
            .childOption(ChannelOption.SO_RCVBUF, 1 << 20)
            .childOption(ChannelOption.SO_SNDBUF, 1 << 20)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(256 * 1024))
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(settings.maxSubscriberBacklog()))
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(final Channel ch) {
                    tp.counters().connectionOpened();
                    connectionsOpen.add(ch);
                    install.accept(ch.pipeline());
                }
            });
        if (!unix) {
            b.option(ChannelOption.SO_REUSEADDR, true).childOption(ChannelOption.TCP_NODELAY, true);
        }
        try {
            return b.bind(at).sync().channel();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (final Exception e) {
            throw new IOException("cannot listen for " + what + " [address=" + at + "]: " + e.getMessage(), e);
        }
    }

    /**
     * The unix socket's address, its file made ready for the bind: a stale file (no process accepts on it) is deleted, a
     * path that a live process listens on or that is not a socket is refused.
     */
    private DomainSocketAddress unixSocketAddress() throws IOException {
        if (tls.enabled()) {
            throw new IllegalArgumentException("tick.tp.unix-socket cannot be combined with TLS: the unix socket has no TLS [path="
                + unixPath + ", tls=" + tls.mode() + "]");
        }
        Transport.requireUnix("listen on " + unixPath);
        if (Files.exists(unixPath, LinkOption.NOFOLLOW_LINKS)) {
            if (!isSocket(unixPath)) {
                throw new IOException("cannot listen on the unix socket: the path is not a socket [path=" + unixPath + "]");
            }
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(unixPath))) {
                throw new IOException("cannot listen on the unix socket: another process listens on it [path=" + unixPath + "]");
            } catch (final java.net.ConnectException e) {
                Files.delete(unixPath);
                LOG.info("stale unix socket file replaced [path={}]", unixPath);
            }
        }
        final Path parent = unixPath.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new DomainSocketAddress(unixPath.toString());
    }

    /** True when {@code path} is a socket file (its mode's file type {@code S_IFSOCK}). */
    private static boolean isSocket(final Path path) throws IOException {
        return Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) instanceof Integer mode && (mode & 0170000) == 0140000;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** What a plaintext client of a port that requires TLS reads before the close. */
    static ByteBuf tlsRequired(final ByteBufAllocator alloc) {
        return ControlFrames.error(alloc, ErrorCode.ACCESS_DENIED, "TLS is required on this port: connect with TLS [port=tp]");
    }

    /** The kdb+ port, or -1 when there is none. */
    public int kdbPort() {
        return kdbChannel == null ? -1 : ((InetSocketAddress) kdbChannel.localAddress()).getPort();
    }

    /** Runs {@code f} on the tickerplant thread and returns its result (REST and tests). */
    public <T> T call(final Function<Tickerplant, T> f) {
        if (loop.inEventLoop()) {
            return f.apply(tp);
        }
        try {
            return loop.submit(() -> f.apply(tp)).get(10, TimeUnit.SECONDS);
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (final TimeoutException e) {
            throw new IllegalStateException("tickerplant thread did not answer within 10 s", e);
        }
    }

    /**
     * Runs {@code task} on the tickerplant thread later, after every task given before it (cluster
     * mode: the log's committed entries, in log order).
     */
    public void execute(final java.util.function.Consumer<Tickerplant> task) {
        loop.execute(() -> {
            try {
                task.accept(tp);
            } catch (final RuntimeException e) {
                LOG.error("tickerplant task failed", e);
            }
        });
    }

    /** The thread everything of the tickerplant runs on (cluster mode schedules its own housekeeping there). */
    public EventLoop loop() {
        return loop;
    }

    public TickerplantStatus status() {
        return call(t -> t.status(upstream == null ? null
            : new TickerplantStatus.Upstream(upstream.tickerplant().host(), upstream.tickerplant().port(), upstream.isConnected())));
    }

    /** Switches the publish mode and timer at run time. */
    public void setMode(final PublishMode mode, final Duration timer) {
        if (timer.toMillis() < 1) {
            throw new IllegalArgumentException("timer must be at least 1 ms [timer=" + timer + "]");
        }
        if (log != null) {
            call(t -> offered(log.offerMode(mode, timer.toNanos()), "mode change"));
            return;
        }
        call(t -> {
            t.setMode(mode, timer.toNanos());
            scheduleTimer(timer.toNanos());
            return null;
        });
    }

    /** Cluster mode: a committed mode change, on the tickerplant thread. */
    public void applyMode(final Tickerplant t, final PublishMode mode, final long timerNanos) {
        t.setMode(mode, timerNanos);
        scheduleTimer(timerNanos);
    }

    /** Throws, naming why, when the log did not take what {@code what} offered. */
    private Void offered(final ErrorCode code, final String what) {
        if (code == ErrorCode.NOT_LEADER) {
            throw new IllegalStateException(what + " refused [code=" + code.tag() + "]: " + log.notLeaderReason(false)
                + "; send it to the leader");
        }
        if (code != ErrorCode.NONE) {
            throw new IllegalStateException(what + " refused [code=" + code.tag() + "]: the cluster cannot commit it now");
        }
        return null;
    }

    /** End of day now ({@code POST /api/eod}). */
    public void endOfDay() {
        if (log != null) {
            call(t -> offered(log.offerEndOfDay(), "end of day"));
            return;
        }
        call(t -> {
            t.onEndOfDay();
            return null;
        });
    }

    public Tickerplant tickerplant() {
        return tp;
    }

    private long totalBacklog() {
        if (loop == null || loop.isShuttingDown()) {
            return 0;
        }
        return call(Tickerplant::totalBacklogBytes);
    }

    private void scheduleTimer(final long nanos) {
        if (timerTask != null) {
            timerTask.cancel(false);
        }
        timerTask = loop.scheduleAtFixedRate(() -> tp.onTimer(), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private void housekeeping() {
        try {
            tp.checkEndOfDay();
            tp.acknowledgeFeeds();
            tp.pretouchJournal();
            final long now = System.nanoTime();
            if (now - lastHeartbeat >= settings.heartbeat().toNanos()) {
                lastHeartbeat = now;
                tp.heartbeat();
            }
        } catch (final RuntimeException e) {
            LOG.error("tickerplant housekeeping failed", e);
        }
    }

    private void scheduleCatchUp() {
        if (!catchUpScheduled) {
            catchUpScheduled = true;
            loop.execute(() -> {
                catchUpScheduled = false;
                tp.catchUpTurn();
            });
        }
    }

    /**
     * Flushes every subscriber written since the last flush, once the tasks queued before it have run
     * (one flush for a run of them: the upstream's updates, the cluster log's committed entries).
     */
    public void scheduleFlush() {
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(() -> {
                flushScheduled = false;
                tp.flush();
            });
        }
    }

    private void startUpstream() {
        final TickClient.Settings s = new TickClient.Settings(settings.upstream(), settings.name() + "-chained", java.util.List.of(),
            java.util.List.of(), Duration.ofMillis(500), settings.maxFrameLength(), access.token());
        upstream = new TickClient(s, new UpstreamListener(), () -> tp.journalSequence(), group, clock).tls(TlsClient.of(tls));
        upstream.start();
    }

    @Override
    public void close() {
        if (upstream != null) {
            upstream.close();
        }
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (kdbChannel != null) {
            kdbChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (unixChannel != null) {
            unixChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            try {
                Files.deleteIfExists(unixPath);
            } catch (final IOException e) {
                LOG.warn("unix socket file not deleted [path={}]: {}", unixPath, e.toString());
            }
        }
        if (connectionsOpen != null) {
            // every feed and subscriber sees the close; event-loop shutdown alone does not promise it
            connectionsOpen.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (loop != null && tp != null) {
            try {
                loop.submit(() -> {
                    if (timerTask != null) {
                        timerTask.cancel(false);
                    }
                    if (housekeeping != null) {
                        housekeeping.cancel(false);
                    }
                    tp.close();
                }).get(10, TimeUnit.SECONDS);
            } catch (final Exception e) {
                LOG.warn("tickerplant close failed: {}", e.toString());
            }
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** Chained TP: the upstream TP's stream, on this TP's own thread. */
    private final class UpstreamListener implements TickListener, UpdateSource {
        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            final ErrorCode code = tp.onUpstreamUpdate(this, update.buffer(), update.offset(), update.frameLength());
            if (code != ErrorCode.NONE) {
                refuse(code, tp.lastError());
            }
            scheduleFlush();
        }

        @Override
        public void refuse(final ErrorCode code, final String reason) {
            LOG.warn("update from upstream refused [code={}]: {}", code.tag(), reason);
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            tp.onEndOfDay();
        }
    }
}
