package io.jtick.core.kdb;

import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** kdb+ IPC compression: a hand-made stream expands as the algorithm says, messages survive a round trip, bad streams are refused. */
@ExtendWith(LeakCheck.class)
class KdbCompressionTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    @Test
    void shouldExpandLiteralsAndABackReferenceAsTheFormatSays() {
        // "abcabcabcX": literals a b c at 8, 9, 10; then a back reference to the pair "ab" (hash 'a'^'b'),
        // whose last start is 8, copying 2 + 4 bytes: "abcabc"; then the literal X.
        final byte[] payload = "abcabcabcX".getBytes(StandardCharsets.US_ASCII);
        final int full = 8 + payload.length;
        final ByteBuf c = ALLOC.directBuffer();
        c.writeByte(1).writeByte(0).writeByte(1).writeByte(0).writeIntLE(0).writeIntLE(full);
        c.writeByte(0b0000_1000);                           // items 0..2 literal, item 3 a reference, item 4 literal
        c.writeByte('a').writeByte('b').writeByte('c');
        c.writeByte(('a' ^ 'b') & 0xff).writeByte(4);
        c.writeByte('X');
        c.setIntLE(4, c.readableBytes());
        final ByteBuf out = new KdbCompression().uncompress(c, 0, c.readableBytes(), ALLOC, 1 << 20);
        try {
            assertThat(out.readableBytes()).isEqualTo(full);
            assertThat(out.getByte(2)).as("compressed flag cleared").isZero();
            assertThat(out.getIntLE(4)).isEqualTo(full);
            assertThat(out.toString(8, payload.length, StandardCharsets.US_ASCII)).isEqualTo("abcabcabcX");
        } finally {
            out.release();
            c.release();
        }
    }

    @Test
    void shouldRoundTripMessagesInBothByteOrders() {
        final Random random = new Random(7);
        // one instance for every message, as a connection's decoder has: messages of every size after each other
        final KdbCompression connection = new KdbCompression();
        for (final boolean le : new boolean[] {true, false}) {
            for (int trial = 0; trial < 50; trial++) {
                final int n = 8 + 2000 + random.nextInt(20_000);
                final ByteBuf msg = ALLOC.directBuffer(n);
                msg.writeByte(le ? 1 : 0).writeByte(0).writeByte(0).writeByte(0);
                if (le) {
                    msg.writeIntLE(n);
                } else {
                    msg.writeInt(n);
                }
                // tick-like data: a few symbols and slowly moving numbers compress; some noise does not
                final String[] syms = {"IBM", "MSFT", "AAPL", "GOOG"};
                while (msg.writerIndex() < n) {
                    if (random.nextInt(10) == 0) {
                        msg.writeByte(random.nextInt(256));
                    } else {
                        final byte[] s = syms[random.nextInt(syms.length)].getBytes(StandardCharsets.US_ASCII);
                        msg.writeBytes(s, 0, Math.min(s.length, n - msg.writerIndex()));
                    }
                }
                final ByteBuf c = KdbCompression.compress(msg, ALLOC);
                assertThat(c).as("tick-like data compresses to under half").isNotNull();
                try {
                    assertThat(c.readableBytes()).isLessThan(n / 2);
                    assertThat(c.getByte(2)).isEqualTo((byte) 1);
                    final ByteBuf back = connection.uncompress(c, 0, c.readableBytes(), ALLOC, 1 << 20);
                    assertThat(ByteBufUtil.equals(back, msg)).as("round trip, le=" + le + ", n=" + n).isTrue();
                    back.release();
                } finally {
                    c.release();
                    msg.release();
                }
            }
        }
    }

    @Test
    void shouldLeaveIncompressibleMessagesAlone() {
        final ByteBuf msg = ALLOC.directBuffer(4096);
        msg.writeByte(1).writeByte(0).writeByte(0).writeByte(0).writeIntLE(4096);
        final Random random = new Random(1);
        while (msg.writerIndex() < 4096) {
            msg.writeByte(random.nextInt(256));
        }
        assertThat(KdbCompression.compress(msg, ALLOC)).isNull();
        msg.release();
    }

    @Test
    void shouldRefuseStreamsThatEndEarlyPointNowhereOrClaimTooMuch() {
        final ByteBuf early = ALLOC.directBuffer();
        early.writeByte(1).writeByte(0).writeByte(1).writeByte(0).writeIntLE(14).writeIntLE(100).writeByte(0).writeByte('a');
        assertThatThrownBy(() -> new KdbCompression().uncompress(early, 0, early.readableBytes(), ALLOC, 1 << 20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends early");
        final ByteBuf nowhere = ALLOC.directBuffer();
        nowhere.writeByte(1).writeByte(0).writeByte(1).writeByte(0).writeIntLE(15).writeIntLE(100).writeByte(1).writeByte(7)
            .writeByte(0);
        assertThatThrownBy(() -> new KdbCompression().uncompress(nowhere, 0, nowhere.readableBytes(), ALLOC, 1 << 20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad back reference");
        final ByteBuf bomb = ALLOC.directBuffer();
        bomb.writeByte(1).writeByte(0).writeByte(1).writeByte(0).writeIntLE(13).writeIntLE(1 << 30).writeByte(0);
        assertThatThrownBy(() -> new KdbCompression().uncompress(bomb, 0, bomb.readableBytes(), ALLOC, 1 << 20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uncompressed length out of range");
        early.release();
        nowhere.release();
        bomb.release();
    }
}
