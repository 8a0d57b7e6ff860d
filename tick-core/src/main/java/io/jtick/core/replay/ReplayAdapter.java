package io.jtick.core.replay;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.tls.TlsListener;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.TruncatedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * One consumer connection on the replay port: decodes what it sends (HELLO, then one REPLAY;
 * heartbeats are ignored) and starts its {@link ReplaySession}. Bad input policy: a malformed or
 * oversized frame, a wrong version, a second REPLAY, any other message type, or a request the HDB
 * refuses ({@link ReplayException}: unknown table, bad range, no partitions, speed ≤ 0...) gets an
 * ERROR frame naming the problem, is counted ({@code tick.hdb.replay.errors{code}}), and the
 * connection is closed; no other consumer notices.
 *
 * <p>Access: a replay is a read. Where the port's {@link AccessCheck} asks for the API token for reads
 * ({@code tick.api.protect-reads}, off loopback or with {@code tick.api.guard=always}), the HELLO
 * before the REPLAY must carry it (protocol 2); otherwise the REPLAY is refused with
 * {@code access-denied}.
 */
final class ReplayAdapter extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayAdapter.class);
    /** Largest request frame (a REPLAY naming many syms fits easily). */
    static final int MAX_REQUEST_BYTES = 4 << 20;

    private final ReplayServer server;
    private final ReplayCounters counters;
    private final AccessCheck access;
    private String name;
    private String token;
    private ReplaySession session;
    private boolean failed;

    private ReplayAdapter(final ReplayServer server, final ReplayCounters counters, final AccessCheck access) {
        this.server = server;
        this.counters = counters;
        this.access = access;
    }

    static void install(final ChannelPipeline pipeline, final ReplayServer server, final ReplayCounters counters,
                        final AccessCheck access) {
        FramePipeline.install(pipeline, MAX_REQUEST_BYTES);
        pipeline.addLast("replay", new ReplayAdapter(server, counters, access));
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
        if (failed) {
            return;
        }
        final int at = frame.readerIndex();
        if (frame.readableBytes() < FrameDescriptor.HEADER_LENGTH) {
            refuse(ctx, ErrorCode.MALFORMED_FRAME, "frame shorter than its header [bytes=" + frame.readableBytes() + "]");
            return;
        }
        final int version = frame.getUnsignedByte(at + FrameDescriptor.VERSION_OFFSET);
        if (version != FrameDescriptor.VERSION) {
            refuse(ctx, ErrorCode.UNSUPPORTED_VERSION, "unsupported frame version [version=" + version + ", supported="
                + FrameDescriptor.VERSION + "]");
            return;
        }
        final int type = ControlFrames.type(frame, at);
        switch (type) {
            case MessageType.HELLO -> {
                try {
                    final ControlFrames.Hello h = ControlFrames.readHello(frame);
                    if (h.protocolVersion() < 1 || h.protocolVersion() > FrameDescriptor.PROTOCOL_VERSION) {
                        refuse(ctx, ErrorCode.UNSUPPORTED_VERSION, "unsupported protocol version [version=" + h.protocolVersion()
                            + ", supported=1.." + FrameDescriptor.PROTOCOL_VERSION + "]");
                        return;
                    }
                    name = h.name();
                    token = h.token();
                } catch (final RuntimeException e) {
                    refuse(ctx, ErrorCode.MALFORMED_FRAME, "malformed hello: " + e.getMessage());
                }
            }
            case MessageType.REPLAY -> {
                if (session != null) {
                    refuse(ctx, ErrorCode.UNEXPECTED_MESSAGE, "one replay per connection [replay=" + session.id + "]");
                    return;
                }
                final String refusal = access.refusal(AccessCheck.Access.READ, token, TlsListener.certified(ctx.channel()));
                if (refusal != null) {
                    refuse(ctx, ErrorCode.ACCESS_DENIED, refusal + (token == null ? ": send it in HELLO (protocol 2) before REPLAY" : ""));
                    return;
                }
                final ControlFrames.Replay request;
                try {
                    request = ControlFrames.readReplay(frame);
                } catch (final RuntimeException e) {
                    refuse(ctx, ErrorCode.MALFORMED_FRAME, "malformed replay request: " + e.getMessage());
                    return;
                }
                try {
                    session = server.open(ctx.channel(), name != null ? name : String.valueOf(ctx.channel().remoteAddress()), request);
                } catch (final ReplayException e) {
                    refuse(ctx, e.code(), e.getMessage());
                    return;
                } catch (final RuntimeException e) {
                    LOG.warn("replay request could not be bound to the HDB [remote={}, consumer={}]", ctx.channel().remoteAddress(), name,
                        e);
                    refuse(ctx, ErrorCode.BAD_REPLAY, ReplayStream.describe(e));
                    return;
                }
                session.start();
            }
            case MessageType.HEARTBEAT -> {
                // liveness only
            }
            default -> refuse(ctx, ErrorCode.UNEXPECTED_MESSAGE, "the replay port takes hello and replay only [type="
                + MessageType.name(type) + "]");
        }
    }

    private void refuse(final ChannelHandlerContext ctx, final ErrorCode code, final String message) {
        failed = true;
        counters.error(code);
        LOG.info("replay request refused [remote={}, consumer={}, code={}]: {}", ctx.channel().remoteAddress(), name, code.tag(), message);
        ctx.writeAndFlush(ControlFrames.error(ctx.alloc(), code, message)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        if (session != null && ctx.channel().isWritable()) {
            session.pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
        if (session != null) {
            session.closed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            refuse(ctx, ErrorCode.OVERSIZED_FRAME, "request frame too long [max=" + MAX_REQUEST_BYTES + "]: " + cause.getMessage());
            return;
        }
        if (cause instanceof TruncatedFrameException) {
            counters.error(ErrorCode.TRUNCATED_FRAME);
        } else if (!(cause instanceof IOException)) {
            LOG.warn("replay connection failed [remote={}, consumer={}]", ctx.channel().remoteAddress(), name, cause);
        }
        ctx.close();
    }
}
