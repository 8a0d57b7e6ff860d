package io.jtick.core.tp;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessCheck.Access;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.TruncatedFrameException;
import io.jtick.core.wire.UpdateValidator;
import io.jtick.core.wire.Transport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One feed or subscriber connection of the tickerplant: takes the frames the splitter cut, decodes
 * their type and dispatches them to the {@link Tickerplant} (HELLO names the peer, UPDATE is
 * {@code .u.upd}, SUBSCRIBE is {@code .u.sub}, HEARTBEAT is ignored); flushes subscribers at the end
 * of each read batch; tells the tickerplant when the socket drains or closes. Runs on the
 * tickerplant thread.
 *
 * <p>Bad input policy: a frame that fails validation, an oversized frame, a malformed header or an
 * unexpected message type gets an ERROR frame naming the problem, is counted, and the connection is
 * closed; updates accepted before it stay journalled and published. A peer that disconnects in the
 * middle of a frame is counted as {@code truncated-frame}. An update the journal refuses, at once or
 * at the next timer tick, is answered the same way ({@code journal-failure}): a numbered feed then
 * reconnects and resends from the number its HELLO is answered with.
 *
 * <p>A feed whose HELLO (protocol 2) says it numbers its updates is the tickerplant's numbered feed of
 * that name: the HELLO is answered with FEED_ACK, its updates carry its numbers, and FEED_ACKs follow
 * as the journal takes them.
 *
 * <p>Access: where the listener's {@link AccessCheck} asks for the API token (bound off loopback, or
 * {@code tick.api.guard=always}), a feed's HELLO must carry it (a write), and a subscriber's too when
 * reads are protected; an UPDATE or SUBSCRIBE before such a HELLO, or a HELLO without the token or
 * with a wrong one, is refused with {@code access-denied} and the connection closed.
 *
 * <p>What every connection shares (refuse once and close, feed count, flush, writability, close,
 * common exceptions) is {@link ClientConnection}'s; this class keeps the native protocol.
 */
final class TickerplantAdapter extends ChannelInboundHandlerAdapter implements UpdateSource {
    private static final Logger LOG = LoggerFactory.getLogger(TickerplantAdapter.class);

    private final Tickerplant tp;
    private final AccessCheck access;
    private final ClientConnection link;
    private ChannelHandlerContext ctx;
    private String token;
    private boolean mayWrite;
    private boolean mayRead;
    private FeedRegistry.Feed numbered;

    private TickerplantAdapter(final Tickerplant tp, final AccessCheck access) {
        this.tp = tp;
        this.access = access;
        this.link = new ClientConnection(tp, LOG, "connection", "frame", "rejected input", "anonymous");
    }

    /** The pipeline of one tickerplant connection: the frame splitter, then this adapter, checking {@code access}. */
    static void install(final ChannelPipeline pipeline, final Tickerplant tp, final AccessCheck access) {
        FramePipeline.install(pipeline, tp.settings().maxFrameLength());
        pipeline.addLast(new TickerplantAdapter(tp, access));
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context) {
        this.ctx = context;
        link.added(context);
    }

    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            if (link.rejected()) {
                return;
            }
            final int offset = frame.readerIndex();
            final int length = frame.readableBytes();
            final UpdateValidator.HeaderProblem headerProblem = UpdateValidator.checkHeader(frame, offset, length);
            if (headerProblem != null) {
                reject(headerProblem.code(), headerProblem.reason());
                return;
            }
            final int type = ControlFrames.type(frame, offset);
            switch (type) {
                case MessageType.UPDATE:
                    onUpdate(frame, offset, length);
                    break;
                case MessageType.HELLO:
                    onHello(ControlFrames.readHello(frame));
                    break;
                case MessageType.SUBSCRIBE:
                    if (!mayRead && !admit(Access.READ)) {
                        break;
                    }
                    final String problem = tp.onSubscribe(context.channel(), link.name(), ControlFrames.readSubscribe(frame));
                    if (problem != null) {
                        refuse(ErrorCode.BAD_SUBSCRIPTION, problem);
                    }
                    break;
                case MessageType.HEARTBEAT:
                    break;
                default:
                    reject(ErrorCode.UNEXPECTED_MESSAGE, "unexpected message from a client [type=" + MessageType.name(type) + "]");
            }
        } catch (final IndexOutOfBoundsException | IllegalArgumentException e) {
            reject(ErrorCode.MALFORMED_FRAME, "malformed frame: " + e.getMessage());
        } finally {
            frame.release();
        }
    }

    private void onHello(final ControlFrames.Hello hello) {
        link.name(hello.name());
        final String name = hello.name();
        if (hello.protocolVersion() < 1 || hello.protocolVersion() > FrameDescriptor.PROTOCOL_VERSION) {
            reject(ErrorCode.UNSUPPORTED_VERSION, "unsupported protocol version [version=" + hello.protocolVersion() + ", supported=1.."
                + FrameDescriptor.PROTOCOL_VERSION + "]");
            return;
        }
        token = hello.token();
        if (!admit(hello.role() == ControlFrames.ROLE_FEED ? Access.WRITE : Access.READ)) {
            return;
        }
        if (!hello.numbered()) {
            return;
        }
        if (numbered != null || name.isEmpty()) {
            reject(ErrorCode.UNEXPECTED_MESSAGE, numbered != null ? "a second hello on a numbered feed's connection [feed=" + name + "]"
                : "a numbered feed needs a name");
            return;
        }
        final String noFeeds = tp.takesNoFeeds();
        if (noFeeds != null) {
            reject(tp.replicated() ? ErrorCode.NOT_LEADER : ErrorCode.UNEXPECTED_MESSAGE, noFeeds);
            return;
        }
        link.asFeed();
        numbered = tp.onFeedHello(this, name);
        LOG.info("numbered feed connected [remote={}, feed={}, journalled={}]", Transport.remote(ctx.channel()), name,
            numbered.journalled);
    }

    @Override
    public FeedRegistry.Feed feed() {
        return numbered;
    }

    @Override
    public void acknowledge(final long feedSequence) {
        if (!link.rejected()) {
            ctx.writeAndFlush(ControlFrames.feedAck(ctx.alloc(), feedSequence), ctx.voidPromise());
        }
    }

    /** Checks the token of the last HELLO (none before one) for {@code a}; refuses and closes when it does not pass. */
    private boolean admit(final Access a) {
        final String refusal = access.refusal(a, token, TlsListener.certified(ctx.channel()));
        if (refusal != null) {
            reject(ErrorCode.ACCESS_DENIED, refusal + (token == null ? ": send it in HELLO (protocol 2)" : ""));
            return false;
        }
        if (a == Access.WRITE) {
            mayWrite = true;
        } else {
            mayRead = true;
        }
        return true;
    }

    private void onUpdate(final ByteBuf frame, final int offset, final int length) {
        if (!mayWrite && !admit(Access.WRITE)) {
            return;
        }
        link.asFeed();
        final ErrorCode code = tp.onUpdate(this, frame, offset, length);
        if (code != ErrorCode.NONE) {
            refuse(code, tp.lastError());
        }
    }

    @Override
    public void pauseInput() {
        link.pauseInput();
    }

    @Override
    public void resumeInput() {
        link.resumeInput();
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext context) {
        link.readComplete();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext context) {
        link.writabilityChanged(context);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context) {
        if (numbered != null) {
            tp.onFeedGone(numbered, this);
        }
        link.inactive(context);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            reject(ErrorCode.OVERSIZED_FRAME, "frame larger than the limit [limit=" + tp.settings().maxFrameLength() + "]: "
                + cause.getMessage());
        } else if (cause instanceof DecoderException && !(cause instanceof TruncatedFrameException)) {
            reject(ErrorCode.MALFORMED_FRAME, "cannot split frames: " + cause.getMessage());
        } else if (!link.exceptionCaught(context, cause)) {
            reject(ErrorCode.INTERNAL_ERROR, ClientConnection.internalError(cause));
        }
    }

    /** Counts the problem, then refuses. */
    private void reject(final ErrorCode code, final String reason) {
        if (!link.rejected()) {
            tp.countError(code);
        }
        refuse(code, reason);
    }

    /** Sends the error and closes, once; the tickerplant has already counted it. */
    @Override
    public void refuse(final ErrorCode code, final String reason) {
        if (!link.rejected()) {
            link.close(code, reason, ControlFrames.error(ctx.alloc(), code, String.valueOf(reason)));
        }
    }
}
