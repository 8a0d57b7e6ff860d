package io.jtick.core.feed;

import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ExtendWith(LeakCheck.class)
class SyntheticFeedTest {
    private static final long NOW = 1_700_000_000_123_456_789L;
    private static final NanoClock FIXED = () -> NOW;

    @Test
    void shouldGenerateTheSameRowsUnderTheSameSeed() {
        final ByteBuf a = tick(new SyntheticFeed("trade", 3, 50, 42, FIXED, false), 100, 5);
        final ByteBuf b = tick(new SyntheticFeed("trade", 3, 50, 42, FIXED, false), 100, 5);
        final ByteBuf c = tick(new SyntheticFeed("trade", 3, 50, 43, FIXED, false), 100, 5);
        try {
            assertThat(ByteBufUtil.equals(a, b)).isTrue();
            assertThat(ByteBufUtil.equals(a, c)).isFalse();
        } finally {
            a.release();
            b.release();
            c.release();
        }
    }

    @Test
    void shouldDifferOnlyInTheTimeColumnWhenTheClockMoves() {
        final long[] t = {1000};
        final SyntheticFeed moving = new SyntheticFeed("quote", 0, 20, 7, () -> t[0] += 1000, false);
        final SyntheticFeed fixed = new SyntheticFeed("quote", 0, 20, 7, FIXED, false);
        final ByteBuf a = tick(moving, 10, 3);
        final ByteBuf b = tick(fixed, 10, 3);
        try {
            final UpdateDecoder da = new UpdateDecoder();
            final UpdateDecoder db = new UpdateDecoder();
            int offset = 0;
            int frame = 0;
            while (offset < a.writerIndex()) {
                da.wrap(a, offset);
                db.wrap(b, offset);
                for (int r = 0; r < 10; r++) {
                    assertThat(da.timestamp(r)).isEqualTo(1000L * (frame + 2));
                    assertThat(db.timestamp(r)).isEqualTo(NOW);
                    assertThat(da.symString(da.symCode(r))).isEqualTo(db.symString(db.symCode(r)));
                    for (int c = 2; c < 6; c++) {
                        assertThat(da.int64(c, r)).isEqualTo(db.int64(c, r));
                    }
                }
                offset += da.frameLength();
                frame++;
            }
            assertThat(frame).isEqualTo(3);
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void shouldWriteFramesThatValidateAndDecodeToTradeRows() {
        final SyntheticFeed feed = new SyntheticFeed("trade", 2, 100, 42, FIXED, false);
        final ByteBuf buf = tick(feed, 50, 4);
        try {
            final UpdateValidator validator = new UpdateValidator(SchemaRegistry.builtIn(2));
            final UpdateDecoder dec = new UpdateDecoder();
            int offset = 0;
            int frames = 0;
            while (offset < buf.writerIndex()) {
                final int length = buf.getIntLE(offset);
                assertThat(validator.validate(buf, offset, length)).as(validator.reason()).isEqualTo(ErrorCode.NONE);
                assertThat(validator.table()).isEqualTo(TableSchema.trade(2));
                dec.wrap(buf, offset);
                assertThat(dec.rowCount()).isEqualTo(50);
                assertThat(dec.feedTime()).isEqualTo(NOW);
                assertThat(dec.flags()).isZero();
                final Set<String> dict = new HashSet<>();
                for (int s = 0; s < dec.symCount(); s++) {
                    assertThat(dict.add(dec.symString(s))).as("dictionary entries are unique").isTrue();
                }
                final Set<String> used = new HashSet<>();
                for (int r = 0; r < 50; r++) {
                    final String sym = dec.symString(dec.symCode(r));
                    used.add(sym);
                    assertThat(sym).matches("S00[0-9][0-9]");
                    assertThat(dec.timestamp(r)).isEqualTo(NOW);
                    final double price = dec.float64(2, r);
                    assertThat(price).isPositive();
                    assertThat(Math.abs(price * 100 - Math.rint(price * 100))).isLessThan(1e-6);
                    assertThat(dec.int64(3, r) % 100).isZero();
                    assertThat((char) dec.int8(4, r)).isIn('@', 'F', 'I', 'T');
                    assertThat(dec.float64(5, r)).isBetween(0.0, 1.0);
                    assertThat(dec.float64(6, r)).isBetween(0.0, 1.0);
                }
                assertThat(used).isEqualTo(dict);
                offset += length;
                frames++;
            }
            assertThat(frames).isEqualTo(4);
            assertThat(feed.rowsRead()).isEqualTo(200);
            assertThat(feed.sym(7)).isEqualTo("S0007");
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldWalkEachSymPriceInCentSteps() {
        final SyntheticFeed feed = new SyntheticFeed("trade", 0, 1, 5, FIXED, false);
        final ByteBuf buf = tick(feed, 1000, 1);
        try {
            final UpdateDecoder dec = new UpdateDecoder().wrap(buf, 0);
            for (int r = 1; r < 1000; r++) {
                assertThat(Math.abs(dec.float64(2, r) - dec.float64(2, r - 1))).isLessThanOrEqualTo(0.0200001);
            }
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldLeaveTimeToTheTickerplantWhenAskedTo() {
        final SyntheticFeed feed = new SyntheticFeed("quote", 0, 10, 1, FIXED, true);
        final ByteBuf buf = tick(feed, 5, 1);
        try {
            final UpdateDecoder dec = new UpdateDecoder().wrap(buf, 0);
            assertThat(dec.flags()).isEqualTo(FrameDescriptor.FLAG_STAMP_TIME);
            assertThat(dec.timestamp(0)).isZero();
            assertThat(dec.feedTime()).isEqualTo(NOW);
            assertThat(dec.float64(3, 0)).isGreaterThan(dec.float64(2, 0));
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldRejectBadParameters() {
        assertThatThrownBy(() -> new SyntheticFeed("trades", 0, 10, 1, FIXED, false)).hasMessageContaining("[table=trades]");
        assertThatThrownBy(() -> new SyntheticFeed("trade", 0, 0, 1, FIXED, false)).hasMessageContaining("[syms=0]");
    }

    @Test
    void shouldNotAllocatePerRow() {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "needs com.sun.management.ThreadMXBean");
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(mx.isThreadAllocatedMemoryEnabled(), "thread allocation accounting is off");
        final SyntheticFeed feed = new SyntheticFeed("trade", 4, 500, 42, FIXED, false);
        final UpdateEncoder enc = new UpdateEncoder();
        // paranoid leak detection records a stack trace per buffer access: measure on an untracked buffer
        final ByteBuf buf = new UnpooledByteBufAllocator(true, true).directBuffer(1 << 20);
        try {
            for (int i = 0; i < 2_000; i++) {
                buf.clear();
                encodeTick(feed, enc, buf, 100, 2);
            }
            final long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < 2_000; i++) {
                buf.clear();
                encodeTick(feed, enc, buf, 100, 2);
            }
            final long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            assertThat(allocated).as("bytes allocated for 400,000 rows").isLessThan(64 * 1024);
        } finally {
            buf.release();
        }
    }

    static ByteBuf tick(final SyntheticFeed feed, final int r, final int u) {
        final ByteBuf buf = Unpooled.buffer();
        assertThat(encodeTick(feed, new UpdateEncoder(), buf, r, u)).isEqualTo(r * u);
        return buf;
    }

    /** The {@code u} frames of one timer tick, {@code r} rows each, as the feed runner sends them; returns the rows written. */
    private static int encodeTick(final SyntheticFeed feed, final UpdateEncoder enc, final ByteBuf buf, final int r, final int u) {
        int rows = 0;
        for (int i = 0; i < u; i++) {
            rows += feed.encodeUpdate(enc, buf, r, Long.MAX_VALUE, NOW);
        }
        return rows;
    }
}
