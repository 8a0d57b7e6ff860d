package io.jtick.sql.pg;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.tls.TlsSettings;
import io.jtick.sql.SqlException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One client of the PostgreSQL port ({@code *Adapter} of the protocol: decodes and dispatches).
 * Start-up and authentication run on the event loop. Once ready, a message runs on the event loop
 * too when {@link PgSession#inline} says its answer is bounded (Parse, Bind, Describe, Sync, and
 * an Execute of a grouped statement or of at most {@link PgSession#INLINE_ROWS} rows: no thread
 * hand-over per statement);
 * any other, and every message behind it, queues and runs in order on a worker, where a slow
 * reader paces the statement. State: {@code phase}, the process id and secret of CancelRequest,
 * the queue of messages and whether a worker drains it, and {@code cancelled}.
 */
final class PgConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(PgConnection.class);
    private static final int PROTOCOL_3 = 196_608;
    private static final int SSL_REQUEST = 80_877_103;
    private static final int GSS_REQUEST = 80_877_104;
    private static final int CANCEL_REQUEST = 80_877_102;
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum Phase { STARTUP, PASSWORD, SASL_FIRST, SASL_FINAL, READY, CLOSED }

    final PgServer server;
    private final PgDecoder decoder;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.STARTUP;
    /** The client asked for TLS and the handshake was started. */
    private boolean tls;
    private int pid;
    private final int secret = RANDOM.nextInt();
    private String user = "jtick";
    private final Map<String, String> startupParams = new HashMap<>();
    private PgScram.Exchange sasl;
    private final ArrayDeque<PgDecoder.Frame> queue = new ArrayDeque<>();
    private boolean draining;
    private volatile boolean cancelled;
    private volatile boolean inactive;
    private final Object writable = new Object();
    private PgSession session;

    PgConnection(final PgServer server, final PgDecoder decoder) {
        this.server = server;
        this.decoder = decoder;
    }

    int secret() {
        return secret;
    }

    /** Stops the running statement at its next batch of rows. */
    void cancel() {
        cancelled = true;
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    /** Reads and clears the cancel flag (a statement starts uncancelled). */
    boolean takeCancelled() {
        final boolean c = cancelled;
        cancelled = false;
        return c;
    }

    boolean cancelled() {
        return cancelled || inactive;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    Map<String, String> startupParams() {
        return startupParams;
    }

    @Override
    public void channelActive(final ChannelHandlerContext c) {
        this.ctx = c;
        server.connections.incrementAndGet();
        c.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext c) {
        inactive = true;
        phase = Phase.CLOSED;
        server.unregister(pid);
        cancel();
        synchronized (queue) {
            for (final PgDecoder.Frame f : queue) {
                f.body().release();
            }
            queue.clear();
        }
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext c) {
        synchronized (writable) {
            writable.notifyAll();
        }
        c.fireChannelWritabilityChanged();
    }

    /** Blocks the worker while the socket's outbound buffer is over its high mark (never the event loop: its answers are bounded). */
    void awaitWritable() {
        if (ctx.executor().inEventLoop()) {
            return;
        }
        synchronized (writable) {
            while (!ctx.channel().isWritable() && !cancelled() && ctx.channel().isActive()) {
                try {
                    writable.wait(100);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SqlException(SqlException.CANCELLED, "canceling statement: server shutting down");
                }
            }
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext c, final Throwable cause) {
        LOG.debug("pg connection failed [remote={}]: {}", c.channel().remoteAddress(), cause.toString());
        c.close();
    }

    @Override
    public void channelRead(final ChannelHandlerContext c, final Object msg) {
        if (msg instanceof PgDecoder.Bad bad) {
            server.badMessages.incrementAndGet();
            final ByteBuf b = c.alloc().buffer();
            PgProxy.fatal(b, SqlException.PROTOCOL, bad.message());
            c.writeAndFlush(b).addListener(f -> c.close());
            return;
        }
        PgDecoder.Frame f = (PgDecoder.Frame) msg;
        if (phase == Phase.READY) {
            synchronized (queue) {
                // behind a worker's statement everything waits its turn; only this thread adds to the queue
                if (draining || !session.inline(f.type(), f.body())) {
                    queue.add(f);
                    if (draining) {
                        return;
                    }
                    draining = true;
                    f = null;
                }
            }
            if (f == null) {
                server.workers.execute(this::drain);
            } else {
                handle(f);
            }
            return;
        }
        try {
            startup(c, f);
        } catch (final RuntimeException e) {
            server.badMessages.incrementAndGet();
            refuse(c, SqlException.PROTOCOL, "malformed start-up message: " + e.getMessage());
        } finally {
            f.body().release();
        }
    }

    private void drain() {
        while (true) {
            final PgDecoder.Frame f;
            synchronized (queue) {
                f = queue.poll();
                if (f == null) {
                    // the event loop takes over behind this worker's writes (queued to it as tasks, in order), never before them
                    try {
                        ctx.executor().execute(this::resume);
                    } catch (final java.util.concurrent.RejectedExecutionException closing) {
                        draining = false;
                    }
                    return;
                }
            }
            handle(f);
        }
    }

    /** On the event loop, after the worker's writes: messages run here again, or a worker drains what came meanwhile. */
    private void resume() {
        synchronized (queue) {
            if (queue.isEmpty()) {
                draining = false;
                return;
            }
        }
        server.workers.execute(this::drain);
    }

    /** Runs one message of a ready connection and releases it; a failure the session did not answer closes the connection. */
    private void handle(final PgDecoder.Frame f) {
        try {
            if (!inactive) {
                session.handle(f.type(), f.body());
            }
        } catch (final RuntimeException e) {
            LOG.warn("pg message failed [type={}]", PgDecoder.printable(f.type()), e);
            if (ctx.channel().isActive()) {
                ctx.close();
            }
        } finally {
            ReferenceCountUtil.safeRelease(f.body());
        }
    }

    // ---- start-up and authentication (event loop) -----------------------------------------------

    private void startup(final ChannelHandlerContext c, final PgDecoder.Frame f) {
        final ByteBuf b = f.body();
        switch (phase) {
            case STARTUP -> {
                final int code = b.readInt();
                if (code == SSL_REQUEST && server.tls.enabled() && !tls) {
                    // 'S' in clear, then the handshake: the TLS handler goes first in the pipeline
                    c.writeAndFlush(c.alloc().buffer(1).writeByte('S'));
                    server.tls.startTls(c.pipeline());
                    tls = true;
                } else if (code == SSL_REQUEST || code == GSS_REQUEST) {
                    c.writeAndFlush(c.alloc().buffer(1).writeByte('N'));
                } else if (code == CANCEL_REQUEST) {
                    server.cancelled.incrementAndGet();
                    server.cancel(b.readInt(), b.readInt());
                    c.close();
                } else if (code == PROTOCOL_3 && !tls && server.tls.mode() == TlsSettings.Mode.REQUIRED) {
                    server.tls.refusedPlaintext(String.valueOf(c.channel().remoteAddress()));
                    refuse(c, "28000", "TLS is required on this port: connect with sslmode=require (or verify-full)");
                } else if (code == PROTOCOL_3) {
                    decoder.typed();
                    while (b.isReadable()) {
                        final String k = cstring(b);
                        if (k.isEmpty()) {
                            break;
                        }
                        startupParams.put(k, cstring(b));
                    }
                    user = startupParams.getOrDefault("user", "jtick");
                    authenticate(c);
                } else {
                    server.badMessages.incrementAndGet();
                    refuse(c, "0A000", "unsupported frontend protocol " + (code >>> 16) + "." + (code & 0xFFFF)
                        + ": the server supports 3.0");
                }
            }
            case PASSWORD -> {
                if (f.type() != 'p') {
                    badBeforeAuth(c, f.type());
                    return;
                }
                final String password = cstring(b);
                final AccessCheck.Verdict v = server.access.check(AccessCheck.Access.READ, password);
                if (v.allowed()) {
                    ready(c);
                } else {
                    refuse(c, SqlException.AUTH, "password authentication failed for user \"" + user + "\": "
                        + server.access.refusal(AccessCheck.Access.READ, password));
                }
            }
            case SASL_FIRST -> {
                if (f.type() != 'p') {
                    badBeforeAuth(c, f.type());
                    return;
                }
                final String mechanism = cstring(b);
                final int len = b.readInt();
                final String first = len < 0 ? "" : b.readCharSequence(len, StandardCharsets.UTF_8).toString();
                final String serverFirst = "SCRAM-SHA-256".equals(mechanism) ? sasl.first(first) : null;
                if (serverFirst == null) {
                    refuse(c, SqlException.AUTH, "SCRAM-SHA-256 exchange malformed [mechanism=" + mechanism + "]");
                    return;
                }
                final ByteBuf out = c.alloc().buffer();
                PgProxy.authSaslStep(out, 11, serverFirst);
                c.writeAndFlush(out);
                phase = Phase.SASL_FINAL;
            }
            case SASL_FINAL -> {
                if (f.type() != 'p') {
                    badBeforeAuth(c, f.type());
                    return;
                }
                final String last = sasl.last(b.readCharSequence(b.readableBytes(), StandardCharsets.UTF_8).toString());
                if (last == null) {
                    refuse(c, SqlException.AUTH, "password authentication failed for user \"" + user
                        + "\": wrong API token (the password is tick.api.token)");
                    return;
                }
                final ByteBuf out = c.alloc().buffer();
                PgProxy.authSaslStep(out, 12, last);
                c.write(out);
                ready(c);
            }
            default -> badBeforeAuth(c, f.type());
        }
    }

    private void authenticate(final ChannelHandlerContext c) {
        if (!server.access.requires(AccessCheck.Access.READ)
            || AccessCheck.covers(TlsListener.certified(c.channel()), AccessCheck.Access.READ)) {
            ready(c);
            return;
        }
        if (server.scram == null) {
            refuse(c, SqlException.AUTH, server.access.refusal(AccessCheck.Access.READ, null));
            return;
        }
        final ByteBuf out = c.alloc().buffer();
        if ("password".equals(startupParams.get("jtick.auth"))) {
            PgProxy.authCleartext(out);
            phase = Phase.PASSWORD;
        } else {
            sasl = server.scram.start();
            PgProxy.authSasl(out);
            phase = Phase.SASL_FIRST;
        }
        c.writeAndFlush(out);
    }

    private void ready(final ChannelHandlerContext c) {
        pid = server.register(this);
        session = new PgSession(this);
        final ByteBuf out = c.alloc().buffer();
        PgProxy.authOk(out);
        PgProxy.parameterStatus(out, "server_version", "14.0");
        PgProxy.parameterStatus(out, "server_encoding", "UTF8");
        PgProxy.parameterStatus(out, "client_encoding", "UTF8");
        PgProxy.parameterStatus(out, "DateStyle", "ISO, MDY");
        PgProxy.parameterStatus(out, "TimeZone", "UTC");
        PgProxy.parameterStatus(out, "integer_datetimes", "on");
        PgProxy.parameterStatus(out, "standard_conforming_strings", "on");
        PgProxy.parameterStatus(out, "is_superuser", "off");
        PgProxy.parameterStatus(out, "session_authorization", user);
        PgProxy.parameterStatus(out, "application_name", startupParams.getOrDefault("application_name", ""));
        PgProxy.backendKey(out, pid, secret);
        PgProxy.ready(out);
        phase = Phase.READY;
        c.writeAndFlush(out);
    }

    private void badBeforeAuth(final ChannelHandlerContext c, final char type) {
        server.badMessages.incrementAndGet();
        refuse(c, SqlException.PROTOCOL, "message before authentication [type=" + PgDecoder.printable(type) + "]");
    }

    private void refuse(final ChannelHandlerContext c, final String state, final String message) {
        phase = Phase.CLOSED;
        final ByteBuf out = c.alloc().buffer();
        PgProxy.fatal(out, state, message);
        c.writeAndFlush(out).addListener(x -> c.close());
    }

    static String cstring(final ByteBuf b) {
        final int end = b.indexOf(b.readerIndex(), b.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new IllegalArgumentException("string without its terminating zero");
        }
        final String s = b.toString(b.readerIndex(), end - b.readerIndex(), StandardCharsets.UTF_8);
        b.readerIndex(end + 1);
        return s;
    }
}
