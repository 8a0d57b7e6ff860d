package io.jtick.sql.pg;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.wire.Transport;
import io.jtick.sql.SqlRunner;
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

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The PostgreSQL wire protocol (v3) on its own port, over one query source through the SQL front
 * end: psql, pgJDBC, psycopg and anything built on them query jtick as they would PostgreSQL.
 * {@code workers} Netty event loops read and write, and run the statements whose answers are bounded
 * (see {@link PgConnection}); the others run on {@code workers} threads, each connection's in order.
 * Metrics: {@code tick.pg.connections} (opened), {@code tick.pg.statements},
 * {@code tick.pg.errors} (statements refused or failed), {@code tick.pg.bad-messages} (malformed,
 * unknown, oversized or out-of-order messages), {@code tick.pg.cancelled}, gauge {@code tick.pg.open}.
 */
public final class PgServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgServer.class);

    final PgSettings settings;
    final SqlRunner runner;
    final QuerySource source;
    final PgCatalog catalog;
    final AccessCheck access;
    final PgScram scram;
    final ExecutorService workers;
    final AtomicLong connections;
    final AtomicLong statements;
    final AtomicLong errors;
    final AtomicLong badMessages;
    final AtomicLong cancelled;
    final TlsListener tls;
    private final Map<Integer, PgConnection> byPid = new ConcurrentHashMap<>();
    private final AtomicInteger pids = new AtomicInteger(1000);
    private final EventLoopGroup group;
    /**
     * The open connections, closed by {@link #close()} while their event loops still run (Netty's pattern); one
     * accepted as the port closes is added after that and closed at once (the group stays closed).
     */
    private final ChannelGroup connectionsOpen = new DefaultChannelGroup("pg-connections", GlobalEventExecutor.INSTANCE, true);
    private final Channel channel;

    /**
     * @param tables the tables the catalog lists (the source's, in order)
     */
    public PgServer(final PgSettings settings, final SqlRunner runner, final QuerySource source,
                    final Supplier<List<TableSchema>> tables, final TickMetrics metrics, final String service) {
        this.settings = settings.validate();
        this.runner = runner;
        this.source = source;
        this.catalog = new PgCatalog(tables);
        final InetAddress bind;
        try {
            bind = InetAddress.getByName(settings.host());
        } catch (final java.net.UnknownHostException e) {
            throw new IllegalArgumentException("pg host unknown [host=" + settings.host() + "]", e);
        }
        this.access = AccessCheck.forListener(settings.access(), bind.isAnyLocalAddress() ? null : bind);
        this.scram = settings.access().hasToken() ? new PgScram(settings.access().token()) : null;
        final String tag = service == null ? "" : "|service=" + service;
        this.connections = metrics.counter("tick.pg.connections" + tag);
        this.statements = metrics.counter("tick.pg.statements" + tag);
        this.errors = metrics.counter("tick.pg.errors" + tag);
        this.badMessages = metrics.counter("tick.pg.bad-messages" + tag);
        this.cancelled = metrics.counter("tick.pg.cancelled" + tag);
        metrics.gauge("tick.pg.open" + tag, () -> byPid.size());
        this.tls = TlsListener.of(settings.tls(), "pg", metrics);
        final AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(settings.workers(), r -> {
            final Thread t = new Thread(r, "pg-" + (service == null ? "sql" : service) + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.group = Transport.newGroup(settings.workers(), "pg-" + (service == null ? "io" : service));
        try {
            this.channel = new ServerBootstrap().group(group).channel(Transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        connectionsOpen.add(ch);
                        final PgDecoder decoder = new PgDecoder(settings.maxMessage());
                        ch.pipeline().addLast(decoder, new PgConnection(PgServer.this, decoder));
                    }
                })
                .bind(new InetSocketAddress(bind, settings.port())).syncUninterruptibly().channel();
        } catch (final RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
            workers.shutdownNow();
            throw e;
        }
        LOG.info("PostgreSQL port listening [address={}, access={}, tls={}]", channel.localAddress(), access.describe(), tls.describe());
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    int register(final PgConnection c) {
        final int pid = pids.incrementAndGet();
        byPid.put(pid, c);
        return pid;
    }

    void unregister(final int pid) {
        byPid.remove(pid);
    }

    /** CancelRequest: the connection with this key stops its statement. */
    void cancel(final int pid, final int secret) {
        final PgConnection c = byPid.get(pid);
        if (c != null && c.secret() == secret) {
            c.cancel();
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        // before the loops stop: a loop shutting down can miss a connection whose peer is closing at that moment
        connectionsOpen.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        for (final PgConnection c : byPid.values()) {
            c.cancel();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
