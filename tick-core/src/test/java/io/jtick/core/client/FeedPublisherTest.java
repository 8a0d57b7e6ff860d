package io.jtick.core.client;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.time.Duration;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The feed client against a tickerplant the test plays on a loopback socket. */
@ExtendWith(LeakCheck.class)
class FeedPublisherTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final TableSchema TRADE = TableSchema.trade(0);

    @Test
    void shouldSayHelloThenSendWholeFramesAndKeepTheErrorsTheTickerplantSends() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher feed = new FeedPublisher("127.0.0.1", tp.port(), "feed-1", null)) {
            feed.connect(5_000);
            tp.accept();
            assertThat(ControlFrames.readHello(tp.read()))
                .isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, FrameDescriptor.VERSION, "feed-1"));
            assertThat(feed.isConnected()).isTrue();
            assertThat(feed.awaitWritable(WAIT.toNanos())).isTrue();

            final ByteBuf two = feed.alloc().directBuffer();
            TestSupport.trade(two, TRADE, 1, 1_000, "A");
            final int first = two.readableBytes();
            TestSupport.trade(two, TRADE, 2, 2_000, "B", "C");
            final byte[] sent = ByteBufUtil.getBytes(two);
            assertThat(feed.send(two)).isTrue();
            feed.flushAndWait();
            final ByteBuf one = tp.read();
            final ByteBuf other = tp.read();
            assertThat(ByteBufUtil.getBytes(one)).isEqualTo(java.util.Arrays.copyOfRange(sent, 0, first));
            assertThat(ByteBufUtil.getBytes(other)).isEqualTo(java.util.Arrays.copyOfRange(sent, first, sent.length));

            tp.write(ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.UNKNOWN_TABLE, "unknown table [table=x]"));
            await("error counted", WAIT, () -> feed.errorsReceived() == 1);
            assertThat(feed.lastError()).isEqualTo("unknown-table: unknown table [table=x]");
        }
    }

    @Test
    void shouldRefuseToSendRatherThanBlockWhenTheConnectionIsGone() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher feed = new FeedPublisher("127.0.0.1", tp.port(), "feed-2", null)) {
            final ByteBuf early = TestSupport.tradeFrame(TRADE, 1, "A");
            assertThat(feed.send(early)).as("not connected yet").isFalse();
            assertThat(early.refCnt()).as("released by send").isZero();

            feed.connect(5_000);
            tp.accept().read();
            tp.closeConnection();
            await("connection gone", WAIT, () -> !feed.isConnected());
            final ByteBuf late = TestSupport.tradeFrame(TRADE, 2, "B");
            assertThat(feed.send(late)).isFalse();
            assertThat(late.refCnt()).isZero();
            assertThat(feed.awaitWritable(WAIT.toNanos())).isFalse();
        }
    }

    @Test
    void shouldNameTheTickerplantItCannotReach() throws Exception {
        final int port;
        try (FakeTickerplant gone = new FakeTickerplant()) {
            port = gone.port();
        }
        try (FeedPublisher feed = new FeedPublisher("127.0.0.1", port, "feed-3", null)) {
            assertThatThrownBy(() -> feed.connect(2_000)).isInstanceOf(IOException.class)
                .hasMessageContaining("host=127.0.0.1").hasMessageContaining("port=" + port);
            assertThat(feed.isConnected()).isFalse();
        }
    }
}
