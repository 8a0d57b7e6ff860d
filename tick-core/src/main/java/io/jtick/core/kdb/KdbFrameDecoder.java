package io.jtick.core.kdb;

import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.TruncatedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.jtick.core.kdb.KdbDescriptor.BYTE_ORDER_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.COMPRESSED_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.HEADER_LENGTH;
import static io.jtick.core.kdb.KdbDescriptor.LENGTH_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.MAX_HANDSHAKE_LENGTH;
import static io.jtick.core.kdb.KdbDescriptor.MESSAGE_TYPE_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.RESPONSE;

/**
 * Cuts a kdb+ connection's bytes into what the handler after it acts on: first the handshake, as a
 * {@link Login}; then each message whole (header included, a retained slice of the input, or a new
 * buffer when it arrived compressed), with its byte order honoured per message. What cannot be read
 * becomes a {@link Problem} (the handler answers and closes), after which every byte is discarded:
 * a handshake without its NUL within 1 KiB, a header whose byte order, type or length is impossible,
 * a message over the limit (told from its header, before its bytes are read), compressed data that
 * does not expand. A connection closed in the middle of a message fires {@link TruncatedFrameException}.
 */
public final class KdbFrameDecoder extends ByteToMessageDecoder {
    /** The handshake: user and password as sent ({@code user:password}, either may be empty) and the capability byte. */
    public record Login(String user, byte[] password, int capability) {
        /** The password as text (ISO-8859-1, as kdb+ clients send it). */
        public String passwordText() {
            return new String(password, StandardCharsets.ISO_8859_1);
        }
    }

    /** Input that cannot be read; {@code messageType} is the message's (-1 for the handshake). */
    public record Problem(ErrorCode code, int messageType, String reason) {
    }

    private enum State { HANDSHAKE, MESSAGES, DISCARD }

    private final int maxLength;
    private final KdbCompression compression = new KdbCompression();
    private State state = State.HANDSHAKE;

    /** Messages over {@code maxLength} bytes, compressed or once uncompressed, are refused. */
    public KdbFrameDecoder(final int maxLength) {
        this.maxLength = maxLength;
        setCumulator(FramePipeline.JOIN);
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
        if (state == State.HANDSHAKE) {
            handshake(in, out);
        }
        while (state == State.MESSAGES && in.readableBytes() >= HEADER_LENGTH) {
            final int at = in.readerIndex();
            final int order = in.getByte(at + BYTE_ORDER_OFFSET);
            final int type = in.getByte(at + MESSAGE_TYPE_OFFSET);
            final int compressed = in.getByte(at + COMPRESSED_OFFSET);
            final int length = order == 1 ? in.getIntLE(at + LENGTH_OFFSET) : in.getInt(at + LENGTH_OFFSET);
            if ((order != 0 && order != 1) || type < 0 || type > RESPONSE || compressed < 0 || compressed > 1
                || length <= HEADER_LENGTH) {
                fail(in, out, ErrorCode.MALFORMED_FRAME, type, "malformed kdb+ message header [byteOrder=" + order + ", type=" + type
                    + ", compressed=" + compressed + ", length=" + length + "]");
                return;
            }
            if (length > maxLength) {
                fail(in, out, ErrorCode.OVERSIZED_FRAME, type, "limit [length=" + length + ", limit=" + maxLength + "]");
                return;
            }
            if (in.readableBytes() < length) {
                return;
            }
            if (compressed == 0) {
                out.add(in.readRetainedSlice(length));
                continue;
            }
            try {
                out.add(compression.uncompress(in, at, length, ctx.alloc(), maxLength));
                in.skipBytes(length);
            } catch (final IllegalArgumentException e) {
                final boolean tooLong = e.getMessage().startsWith("uncompressed length");
                fail(in, out, tooLong ? ErrorCode.OVERSIZED_FRAME : ErrorCode.MALFORMED_FRAME, type, e.getMessage());
                return;
            }
        }
        if (state == State.DISCARD) {
            in.skipBytes(in.readableBytes());
        }
    }

    private void handshake(final ByteBuf in, final List<Object> out) {
        final int nul = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        if (nul < 0) {
            if (in.readableBytes() > MAX_HANDSHAKE_LENGTH) {
                fail(in, out, ErrorCode.MALFORMED_FRAME, -1, "handshake without its NUL in the first " + MAX_HANDSHAKE_LENGTH + " bytes");
            }
            return;
        }
        final int start = in.readerIndex();
        int end = nul;
        int capability = 0;
        if (end > start && in.getByte(end - 1) < ' ' && in.getByte(end - 1) >= 0) {
            capability = in.getByte(end - 1);
            end--;
        }
        final int colon = in.indexOf(start, end, (byte) ':');
        final int userEnd = colon < 0 ? end : colon;
        final String user = in.toString(start, userEnd - start, StandardCharsets.ISO_8859_1);
        final byte[] password = new byte[colon < 0 ? 0 : end - colon - 1];
        if (colon >= 0) {
            in.getBytes(colon + 1, password);
        }
        in.readerIndex(nul + 1);
        state = State.MESSAGES;
        out.add(new Login(user, password, capability));
    }

    private void fail(final ByteBuf in, final List<Object> out, final ErrorCode code, final int type, final String reason) {
        state = State.DISCARD;
        in.skipBytes(in.readableBytes());
        out.add(new Problem(code, type, reason));
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
        final int left = actualReadableBytes();
        if (left > 0 && state != State.DISCARD) {
            state = State.DISCARD;
            ctx.fireExceptionCaught(new TruncatedFrameException(left));
        }
        super.channelInactive(ctx);
    }
}
