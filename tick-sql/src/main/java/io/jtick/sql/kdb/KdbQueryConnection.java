package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbFrameDecoder;
import io.jtick.core.kdb.KdbReader;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.wire.TruncatedFrameException;
import io.jtick.sql.q.QEvaluator;
import io.jtick.sql.q.QException;
import io.jtick.sql.q.QFunctional;
import io.jtick.sql.q.QParser;
import io.jtick.sql.q.QValue;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * One kdb+ client of the query port: checks its login, then answers its messages in order. Each is
 * read and compiled on the event loop; a query whose answer is bounded (groups, aggregates, at most
 * {@code SqlPlan.INLINE_ROWS} rows: the PostgreSQL port's rule) runs there as well, any other on a
 * worker thread (it may scan and send for a while; the event loop keeps serving the others). A
 * sync message gets exactly one response: the answer, or a q error ({@code 'nyi [...]},
 * {@code 'type [...]}, {@code 'trade}, {@code 'limit [...]}); the connection stays open. An async
 * message is run and its answer dropped, as q does. A message that cannot be read (malformed,
 * over the limit, a response sent to the server) is answered with an error when sync and closes
 * this connection only.
 */
final class KdbQueryConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KdbQueryConnection.class);
    /** What a worker hands back: the response (null: none) and whether to close after it. */
    private record Outcome(ByteBuf response, boolean close) {
    }

    private final KdbQueryServer server;
    private final KdbReader reader = new KdbReader();
    private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean loggedIn;
    private boolean busy;
    private boolean closed;

    KdbQueryConnection(final KdbQueryServer server) {
        this.server = server;
    }

    @Override
    public void channelActive(final ChannelHandlerContext context) {
        this.ctx = context;
        server.connections.getAndIncrement();
        server.open.getAndIncrement();
        context.fireChannelActive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg) {
        if (msg instanceof KdbFrameDecoder.Login login) {
            onLogin(login);
        } else if (msg instanceof KdbFrameDecoder.Problem problem) {
            server.badMessages.getAndIncrement();
            LOG.warn("kdb+ message refused, closing [remote={}]: {}", ctx.channel().remoteAddress(), problem.reason());
            closeWith(problem.messageType() == KdbDescriptor.SYNC ? KdbWriter.error(ctx.alloc(), problem.reason()) : null);
        } else {
            final ByteBuf m = (ByteBuf) msg;
            if (!loggedIn || closed) {
                m.release();
                return;
            }
            pending.add(m);
            next();
        }
    }

    private void onLogin(final KdbFrameDecoder.Login login) {
        final KdbAccess.Verdict verdict = server.access.check(login.user(), login.password(), TlsListener.certified(ctx.channel()));
        server.logins.get(verdict).getAndIncrement();
        if (!verdict.allowed()) {
            LOG.warn("kdb+ login refused, closing [remote={}, user={}, reason={}]", ctx.channel().remoteAddress(), login.user(),
                verdict.tag());
            closed = true;
            ctx.close();
            return;
        }
        loggedIn = true;
        ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(Math.min(login.capability(), KdbDescriptor.CAPABILITY)));
    }

    /**
     * Answers the pending messages in order. Each is read and compiled here, on the event loop; one whose
     * answer is bounded ({@link QEvaluator.Call#inline}, the PostgreSQL port's rule) runs here too, with
     * no hand-over to a worker and back; any other runs on a worker, and the messages behind it wait.
     */
    private void next() {
        while (!busy && !closed && !pending.isEmpty()) {
            final ByteBuf m = pending.poll();
            final long t0 = System.nanoTime();
            final Prepared p;
            try {
                p = prepare(m);
            } finally {
                m.release();
            }
            if (p.outcome() != null) {
                done(p.outcome(), false);
            } else if (p.call().inline()) {
                done(answer(p, t0), false);
            } else {
                busy = true;
                try {
                    server.workers.execute(() -> {
                        final Outcome o = answer(p, t0);
                        try {
                            ctx.executor().execute(() -> done(o, true));
                        } catch (final java.util.concurrent.RejectedExecutionException e) {
                            if (o.response() != null) {
                                o.response().release(); // the server is closing
                            }
                        }
                    });
                } catch (final java.util.concurrent.RejectedExecutionException e) {
                    busy = false;
                    return;
                }
            }
        }
    }

    /** An answer written (or the connection closed); from a worker, the messages that came meanwhile go next. */
    private void done(final Outcome o, final boolean fromWorker) {
        if (fromWorker) {
            busy = false;
        }
        if (closed) {
            if (o.response() != null) {
                o.response().release();
            }
            return;
        }
        if (o.close()) {
            closeWith(o.response());
            return;
        }
        if (o.response() != null) {
            ctx.writeAndFlush(o.response());
        }
        if (fromWorker) {
            next();
        }
    }

    /** A message read and compiled: the call to run, or already its outcome (an error, a message that closes). */
    private record Prepared(boolean sync, QEvaluator.Call call, Outcome outcome) {
    }

    /** Reads one message and compiles it (on the event loop). */
    private Prepared prepare(final ByteBuf m) {
        reader.wrap(m, m.readerIndex(), m.readableBytes());
        final int type = reader.messageType();
        if (type == KdbDescriptor.RESPONSE) {
            server.badMessages.getAndIncrement();
            return new Prepared(false, null, new Outcome(null, true));
        }
        final boolean sync = type == KdbDescriptor.SYNC;
        server.queries.getAndIncrement();
        try {
            return new Prepared(sync, compile(reader.body()), null);
        } catch (final KdbReader.Malformed | IndexOutOfBoundsException e) {
            server.badMessages.getAndIncrement();
            LOG.warn("malformed kdb+ message, closing [remote={}]: {}", ctx.channel().remoteAddress(), e.getMessage());
            return new Prepared(sync, null, new Outcome(sync ? KdbWriter.error(ctx.alloc(), "malformed kdb+ message: " + e.getMessage())
                : null, true));
        } catch (final RuntimeException e) {
            return new Prepared(sync, null, refused(sync, e));
        }
    }

    /** Runs a compiled message and builds its response (on the event loop or a worker). */
    private Outcome answer(final Prepared p, final long t0) {
        try {
            final QValue v = p.call().run();
            server.latency.record(System.nanoTime() - t0);
            if (!p.sync()) {
                return new Outcome(null, false);
            }
            final long size = KdbValueWriter.size(v);
            if (size > Integer.MAX_VALUE - 64) {
                throw new QException("limit [answer over 2 GB, bytes=" + size + "]");
            }
            final ByteBuf r = KdbWriter.begin(ctx.alloc(), KdbDescriptor.RESPONSE, (int) size);
            try {
                KdbValueWriter.write(r, v);
            } catch (final RuntimeException e) {
                r.release();
                throw e;
            }
            return new Outcome(KdbWriter.end(r), false);
        } catch (final RuntimeException e) {
            return refused(p.sync(), e);
        }
    }

    /** A q error (or an internal one) for the client; the connection stays open. */
    private Outcome refused(final boolean sync, final RuntimeException e) {
        server.errors.getAndIncrement();
        if (e instanceof QException) {
            LOG.debug("kdb+ query refused [remote={}]: {}", ctx.channel().remoteAddress(), e.getMessage());
            return new Outcome(sync ? KdbWriter.error(ctx.alloc(), e.getMessage()) : null, false);
        }
        LOG.error("kdb+ query failed [remote={}]", ctx.channel().remoteAddress(), e);
        return new Outcome(sync ? KdbWriter.error(ctx.alloc(), "internal error: " + e) : null, false);
    }

    /** A message compiled: q text (a char vector or char atom), or a functional select as PyKX sends it. */
    private QEvaluator.Call compile(final int pos) {
        final int t = reader.type(pos);
        if (t == KdbType.CHAR || t == -KdbType.CHAR) {
            reader.skip(pos);
            return server.evaluator.prepare(QParser.parse(reader.text(pos)));
        }
        if (t == KdbType.LIST) {
            final QValue list = new KdbValueReader(reader).read(pos);
            if (QFunctional.isSelect(list)) {
                return server.evaluator.prepare(QFunctional.select(list));
            }
            final boolean text = list.count() > 0 && list.item(0).type() == KdbType.CHAR;
            throw QException.nyi("a call " + (text ? QParser.abbreviate(list.item(0).text())
                : "of a " + KdbType.name(list.count() > 0 ? list.item(0).type() : 0)) + " (send q text, or PyKX's qsql.select/exec)");
        }
        throw QException.nyi("a message of type " + KdbType.name(t) + " (send q text: h\"select ...\")");
    }

    private void closeWith(final ByteBuf last) {
        closed = true;
        for (ByteBuf m = pending.poll(); m != null; m = pending.poll()) {
            m.release();
        }
        if (last != null) {
            ctx.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context) {
        server.open.getAndDecrement();
        closed = true;
        for (ByteBuf m = pending.poll(); m != null; m = pending.poll()) {
            m.release();
        }
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        if (cause instanceof TruncatedFrameException) {
            server.badMessages.getAndIncrement();
        } else if (!(cause instanceof IOException)) {
            LOG.warn("kdb+ connection failed [remote={}]", context.channel().remoteAddress(), cause);
        }
        closed = true;
        context.close();
    }
}
