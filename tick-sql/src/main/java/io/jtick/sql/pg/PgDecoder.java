package io.jtick.sql.pg;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the client's bytes into messages: before start-up a length and a body (StartupMessage,
 * SSLRequest, CancelRequest), then a type byte, a length and a body. A length below 4 or over the
 * limit is a {@link Bad} message (the connection answers it and closes: the stream cannot be
 * resynchronised).
 */
final class PgDecoder extends ByteToMessageDecoder {
    /** One message: {@code type} 0 for the start-up phase's; the body is the handler's to release. */
    record Frame(char type, ByteBuf body) {
    }

    /** A length the decoder refuses. */
    record Bad(String message) {
    }

    private final int maxBytes;
    private volatile boolean typed;
    private boolean failed;

    PgDecoder(final int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** After the StartupMessage every message has a type byte. */
    void typed() {
        typed = true;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        final int header = typed ? 5 : 4;
        while (in.readableBytes() >= header) {
            final int start = in.readerIndex();
            final char type = typed ? (char) (in.getByte(start) & 0xFF) : 0;
            final int length = in.getInt(start + header - 4);
            if (length < 4 || length > maxBytes) {
                failed = true;
                in.skipBytes(in.readableBytes());
                out.add(new Bad(length < 4 ? "invalid message length [length=" + length + "]"
                    : "message over the size limit [length=" + length + ", max=" + maxBytes + ", type=" + printable(type) + "]"));
                return;
            }
            if (in.readableBytes() < header - 4 + length) {
                return;
            }
            in.skipBytes(header);
            out.add(new Frame(type, in.readRetainedSlice(length - 4)));
            if (!typed) {
                // the connection decides (StartupMessage: typed from now on); stop here so it can
                return;
            }
        }
    }

    static String printable(final char type) {
        return type >= 32 && type < 127 ? String.valueOf(type) : "0x" + Integer.toHexString(type);
    }
}
