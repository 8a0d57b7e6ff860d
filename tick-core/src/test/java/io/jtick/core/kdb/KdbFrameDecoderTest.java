package io.jtick.core.kdb;

import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.TruncatedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static org.assertj.core.api.Assertions.assertThat;

/** The kdb+ handshake and message splitter on an embedded channel. */
@ExtendWith(LeakCheck.class)
class KdbFrameDecoderTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    private final List<Throwable> errors = new ArrayList<>();
    private EmbeddedChannel ch;

    @AfterEach
    void close() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    private EmbeddedChannel channel(final int max) {
        ch = new EmbeddedChannel(new KdbFrameDecoder(max), new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                errors.add(cause);
            }
        });
        return ch;
    }

    private static ByteBuf ascii(final String s) {
        return ALLOC.buffer().writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static ByteBuf upd(final boolean le) {
        return KdbObjects.message(ALLOC, le, KdbDescriptor.ASYNC, call(".u.upd", sym("trade"),
            list(syms("IBM", "MSFT"), floats(1.5, 2.5))));
    }

    @Test
    void shouldReadTheHandshakeUserPasswordAndCapability() {
        channel(1 << 20);
        ch.writeInbound(ascii("alice:s3cret\u0006\u0000"));
        final KdbFrameDecoder.Login login = ch.readInbound();
        assertThat(login.user()).isEqualTo("alice");
        assertThat(login.passwordText()).isEqualTo("s3cret");
        assertThat(login.capability()).isEqualTo(6);

        channel(1 << 20);
        ch.writeInbound(ascii(":\u0003"), ascii("\u0000"));
        final KdbFrameDecoder.Login empty = ch.readInbound();
        assertThat(empty.user()).isEmpty();
        assertThat(empty.password()).isEmpty();
        assertThat(empty.capability()).isEqualTo(3);

        channel(1 << 20);
        ch.writeInbound(ascii("bob\u0000"));
        final KdbFrameDecoder.Login old = ch.readInbound();
        assertThat(old.user()).as("a client that sends no capability byte").isEqualTo("bob");
        assertThat(old.capability()).isZero();
    }

    @Test
    void shouldCutMessagesInEitherByteOrderWhateverTheReadsAre() {
        channel(1 << 20);
        ch.writeInbound(ascii("u:p\u0003\u0000"));
        assertThat((Object) ch.readInbound()).isInstanceOf(KdbFrameDecoder.Login.class);
        final ByteBuf le = upd(true);
        final ByteBuf be = upd(false);
        final ByteBuf both = ALLOC.buffer().writeBytes(le, 0, le.readableBytes()).writeBytes(be, 0, be.readableBytes());
        for (int i = 0; i < both.readableBytes(); i += 7) {
            ch.writeInbound(both.retainedSlice(i, Math.min(7, both.readableBytes() - i)));
        }
        both.release();
        final ByteBuf first = ch.readInbound();
        final ByteBuf second = ch.readInbound();
        assertThat(KdbObjects.show(KdbObjects.read(first).value())).isEqualTo("(`.u.upd;`trade;([IBM, MSFT];[1.5, 2.5]))");
        assertThat(KdbObjects.show(KdbObjects.read(second).value())).isEqualTo(KdbObjects.show(KdbObjects.read(first).value()));
        assertThat(second.getByte(0)).as("big-endian kept as sent").isZero();
        first.release();
        second.release();
        le.release();
        be.release();
        assertThat((Object) ch.readInbound()).isNull();
    }

    @Test
    void shouldExpandCompressedMessages() {
        channel(1 << 20);
        ch.writeInbound(ascii(":\u0003\u0000"));
        ch.readInbound();
        final String[] many = new String[500];
        java.util.Arrays.fill(many, "IBM");
        final ByteBuf plain = KdbObjects.message(ALLOC, false, KdbDescriptor.SYNC, call(".u.upd", sym("trade"), list(syms(many))));
        final ByteBuf compressed = KdbCompression.compress(plain, ALLOC);
        assertThat(compressed.readableBytes()).isLessThan(plain.readableBytes() / 2);
        ch.writeInbound(compressed);
        final ByteBuf out = ch.readInbound();
        assertThat(out.getByte(2)).isZero();
        assertThat(out.getInt(4)).isEqualTo(plain.readableBytes());
        assertThat(out.getByte(1)).isEqualTo((byte) KdbDescriptor.SYNC);
        assertThat(io.netty.buffer.ByteBufUtil.equals(out.slice(8, out.readableBytes() - 8), plain.slice(8, plain.readableBytes() - 8)))
            .isTrue();
        out.release();
        plain.release();
    }

    @Test
    void shouldTurnWhatCannotBeReadIntoAProblemAndDiscardTheRest() {
        channel(1024);
        ch.writeInbound(ascii(":\u0003\u0000"));
        ch.readInbound();
        final ByteBuf big = ALLOC.buffer().writeByte(1).writeByte(1).writeByte(0).writeByte(0).writeIntLE(4096);
        ch.writeInbound(big, upd(true));
        final KdbFrameDecoder.Problem oversized = ch.readInbound();
        assertThat(oversized.code()).isEqualTo(ErrorCode.OVERSIZED_FRAME);
        assertThat(oversized.messageType()).isEqualTo(KdbDescriptor.SYNC);
        assertThat(oversized.reason()).isEqualTo("limit [length=4096, limit=1024]");
        assertThat((Object) ch.readInbound()).as("what follows is discarded").isNull();

        channel(1024);
        ch.writeInbound(ascii(":\u0003\u0000"));
        ch.readInbound();
        ch.writeInbound(ALLOC.buffer().writeByte(7).writeByte(0).writeByte(0).writeByte(0).writeIntLE(20));
        final KdbFrameDecoder.Problem header = ch.readInbound();
        assertThat(header.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(header.reason()).contains("byteOrder=7");

        channel(1024);
        final ByteBuf noNul = ALLOC.buffer();
        noNul.writeZero(0);
        for (int i = 0; i < 1100; i++) {
            noNul.writeByte('x');
        }
        ch.writeInbound(noNul);
        final KdbFrameDecoder.Problem handshake = ch.readInbound();
        assertThat(handshake.messageType()).isEqualTo(-1);
        assertThat(handshake.reason()).contains("handshake");

        channel(1 << 20);
        ch.writeInbound(ascii(":\u0003\u0000"));
        ch.readInbound();
        final ByteBuf garbage = ALLOC.buffer().writeByte(1).writeByte(0).writeByte(1).writeByte(0).writeIntLE(14).writeIntLE(500)
            .writeByte(0).writeByte('a');
        ch.writeInbound(garbage);
        final KdbFrameDecoder.Problem bad = ch.readInbound();
        assertThat(bad.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(bad.reason()).contains("ends early");
    }

    @Test
    void shouldReportAConnectionClosedInTheMiddleOfAMessage() {
        channel(1 << 20);
        ch.writeInbound(ascii(":\u0003\u0000"));
        ch.readInbound();
        final ByteBuf m = upd(true);
        ch.writeInbound(m.retainedSlice(0, 10));
        m.release();
        ch.close();
        assertThat(errors).singleElement().isInstanceOf(TruncatedFrameException.class);
    }
}
