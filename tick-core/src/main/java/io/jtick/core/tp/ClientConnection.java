package io.jtick.core.tp;

import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.TruncatedFrameException;
import io.jtick.core.wire.Transport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;

import java.io.IOException;

/**
 * The lifecycle of one client connection of the tickerplant, shared by its two adapters
 * ({@link TickerplantAdapter}, native; {@link KdbAdapter}, kdb+ IPC), each of which keeps only its
 * protocol: the connection's name, whether it is a feed (counted in the TP's connected feeds once),
 * the close policy for bad input (refused once: logged, no more reads, the protocol's answer written,
 * then closed), the end of a read batch (flush the subscribers), writability (continue catch-ups),
 * closing (feed count, subscriber removal) and the exceptions every protocol shares (a peer gone in
 * the middle of a frame, a socket error, an unexpected one). Tickerplant thread only.
 *
 * <p>State: {@code ctx}, {@code name}, {@code feed} (counted as a connected feed), {@code rejected}
 * (refused: nothing more is read or answered).
 */
final class ClientConnection {
    private final Tickerplant tp;
    private final Logger log;
    private final String label;
    private final String unit;
    private final String refused;
    private ChannelHandlerContext ctx;
    private String name;
    private boolean feed;
    private boolean rejected;

    /**
     * @param log     the adapter's logger: its lines keep the adapter's name
     * @param label   the connection in log lines ({@code "connection"}, {@code "kdb+ connection"})
     * @param unit    what the protocol's peer sends ({@code "frame"}, {@code "message"})
     * @param refused how a refusal that closes is logged ({@code "rejected input"}, {@code "kdb+ message refused"})
     * @param name    the peer's name until it says another
     */
    ClientConnection(final Tickerplant tp, final Logger log, final String label, final String unit, final String refused,
                     final String name) {
        this.tp = tp;
        this.log = log;
        this.label = label;
        this.unit = unit;
        this.refused = refused;
        this.name = name;
    }

    /** {@code handlerAdded}: the adapter's context. */
    void added(final ChannelHandlerContext context) {
        this.ctx = context;
    }

    String name() {
        return name;
    }

    void name(final String n) {
        name = n;
    }

    /** Refused: nothing more is read or answered. */
    boolean rejected() {
        return rejected;
    }

    /** This connection is a feed: counted in the TP's connected feeds once. */
    void asFeed() {
        if (!feed) {
            feed = true;
            tp.counters().feedConnected(true);
        }
    }

    /**
     * Refuses and closes, once: logs, stops reading, writes {@code answer} (null: none) and closes once it
     * is written. The caller has counted the error; {@code answer} is released when already refused.
     */
    void close(final ErrorCode code, final String reason, final ByteBuf answer) {
        if (rejected) {
            if (answer != null) {
                answer.release();
            }
            return;
        }
        rejected = true;
        log.warn("{}, closing connection [remote={}, name={}, code={}]: {}", refused, Transport.remote(ctx.channel()), name, code.tag(),
            reason);
        ctx.channel().config().setAutoRead(false);
        if (answer != null) {
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    /** Stops reading this connection (its TCP window then fills, pacing the peer) until {@link #resumeInput}. */
    void pauseInput() {
        if (!rejected) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Reads this connection again, unless it was refused meanwhile. */
    void resumeInput() {
        if (!rejected) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Closes without an answer or a refusal logged (the adapter logged why): how kdb+ refuses a login. */
    void drop() {
        rejected = true;
        ctx.close();
    }

    /** {@code channelReadComplete}: the end of a read batch flushes every subscriber written since the last. */
    void readComplete() {
        tp.flush();
    }

    /** {@code channelWritabilityChanged}: a drained socket continues the catch-ups waiting for it. */
    void writabilityChanged(final ChannelHandlerContext context) {
        if (context.channel().isWritable()) {
            tp.onWritable(context.channel());
        }
        context.fireChannelWritabilityChanged();
    }

    /** {@code channelInactive}, after the adapter's own bookkeeping: the feed count, then {@code .u.del}. */
    void inactive(final ChannelHandlerContext context) {
        if (feed) {
            tp.counters().feedConnected(false);
        }
        tp.onDisconnect(context.channel());
    }

    /**
     * {@code exceptionCaught}, for what every protocol shares (the adapter has handled its own): a peer
     * gone in the middle of a {@code unit} is counted as {@code truncated-frame}; a socket error closes
     * quietly; anything else is logged, and false returned: the adapter refuses it as {@code internal-error}
     * under its protocol ({@link #internalError}).
     */
    boolean exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        if (cause instanceof TruncatedFrameException) {
            tp.countError(ErrorCode.TRUNCATED_FRAME);
            log.warn("{} closed in the middle of a {} [remote={}, name={}]: {}", label, unit, Transport.remote(context.channel()), name,
                cause.getMessage());
        } else if (cause instanceof IOException) {
            log.debug("{} error [remote={}, name={}]: {}", label, Transport.remote(context.channel()), name, cause.toString());
            context.close();
        } else {
            log.error("unexpected error on {} [remote={}, name={}]", label, Transport.remote(context.channel()), name, cause);
            return false;
        }
        return true;
    }

    /** The reason an unexpected failure is refused with. */
    static String internalError(final Throwable cause) {
        return "internal error handling this connection: " + cause;
    }
}
