package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbFrameDecoder;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.wire.Transport;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.q.QEvaluator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The kdb+ IPC protocol on its own port over one query source ({@code docs/kdb-ipc.md} "q on the
 * RDB and HDB"): q processes, PyKX, kola, javakdb and kdb+ gateways send q strings, which the q front
 * end ({@link QEvaluator}) compiles to the engine's plan. The TP's codec does the bytes
 * ({@link KdbFrameDecoder}: handshake, byte order per message, compression, the length limit) and
 * its {@link KdbAccess} the logins (q's {@code -u} file, the API token). {@code workers} Netty event loops
 * read, write and run the queries whose answers are bounded (see {@link KdbQueryConnection}), as the
 * PostgreSQL port does; the others run on {@code workers} threads, each connection's in order.
 *
 * <p>Metrics (tag {@code service}): {@code tick.kdb.queries}, {@code tick.kdb.errors} (queries answered
 * with a q error), {@code tick.kdb.bad-messages} (malformed, oversized or unexpected messages: the
 * connection is closed), {@code tick.kdb.connections} (opened), {@code tick.kdb.logins{result}},
 * gauge {@code tick.kdb.open}, latency {@code tick.kdb.query} (message read to answer built).
 */
public final class KdbQueryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KdbQueryServer.class);

    final KdbQuerySettings settings;
    final QEvaluator evaluator;
    final KdbAccess access;
    final ExecutorService workers;
    final AtomicLong queries;
    final AtomicLong errors;
    final AtomicLong badMessages;
    final AtomicLong connections;
    final AtomicLong open = new AtomicLong();
    final LatencyStats latency;
    final Map<KdbAccess.Verdict, AtomicLong> logins = new EnumMap<>(KdbAccess.Verdict.class);
    private final EventLoopGroup group;
    /**
     * The open connections, closed by {@link #close()} while their event loops still run (Netty's pattern); one
     * accepted as the port closes is added after that and closed at once (the group stays closed).
     */
    private final ChannelGroup connectionsOpen = new DefaultChannelGroup("kdb-connections", GlobalEventExecutor.INSTANCE, true);
    private final Channel channel;
    private final TlsListener tls;

    /**
     * @param tables the tables {@code tables[]} lists (the source's)
     */
    public KdbQueryServer(final KdbQuerySettings settings, final SqlRunner runner, final QuerySource source,
                          final Supplier<List<TableSchema>> tables, final TickMetrics metrics, final String service) {
        this.settings = settings.validate();
        this.evaluator = new QEvaluator(runner, source, tables, settings.partitioned());
        final InetAddress bind;
        try {
            bind = InetAddress.getByName(settings.host());
            this.access = KdbAccess.of(settings.kdb(), bind.isAnyLocalAddress() ? null : bind);
        } catch (final IOException e) {
            throw new UncheckedIOException("kdb+ port: cannot read the users file or resolve the host [host=" + settings.host()
                + ", users=" + settings.kdb().usersFile() + "]", e);
        }
        final String tag = "|service=" + (service == null ? "q" : service);
        this.tls = TlsListener.of(settings.tls(), "kdb", metrics);
        this.queries = metrics.counter("tick.kdb.queries" + tag);
        this.errors = metrics.counter("tick.kdb.errors" + tag);
        this.badMessages = metrics.counter("tick.kdb.bad-messages" + tag);
        this.connections = metrics.counter("tick.kdb.connections" + tag);
        for (final KdbAccess.Verdict v : KdbAccess.Verdict.values()) {
            logins.put(v, metrics.counter("tick.kdb.logins" + tag + "|result=" + v.tag()));
        }
        this.latency = metrics.latency("tick.kdb.query" + tag, "One q query on the kdb+ port, message read to answer built");
        metrics.gauge("tick.kdb.open" + tag, open::get);
        final AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(settings.workers(), r -> {
            final Thread t = new Thread(r, "kdb-" + (service == null ? "q" : service) + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.group = Transport.newGroup(settings.workers(), "kdb-" + (service == null ? "io" : service));
        try {
            this.channel = new ServerBootstrap().group(group).channel(Transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        connectionsOpen.add(ch);
                        tls.install(ch.pipeline(), null);
                        ch.pipeline().addLast("kdb-frames", new KdbFrameDecoder(settings.maxMessage()));
                        ch.pipeline().addLast(new KdbQueryConnection(KdbQueryServer.this));
                    }
                })
                .bind(new InetSocketAddress(bind, settings.kdb().port())).syncUninterruptibly().channel();
        } catch (final RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
            workers.shutdownNow();
            throw e;
        }
        LOG.info("kdb+ query port listening [address={}, access={}, partitioned={}, tls={}]", channel.localAddress(), access.describe(),
            settings.partitioned(), tls.describe());
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        // before the loops stop: a loop shutting down can miss a connection whose peer is closing at that moment
        connectionsOpen.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
