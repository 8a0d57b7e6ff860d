package io.jtick.core.feed;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.Transport;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.UpdateValidator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class FeedRunnerTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private EventLoopGroup group;
    private Channel server;
    private volatile Channel child;
    private volatile boolean autoRead = true;
    private final AtomicLong rowsReceived = new AtomicLong();
    private final AtomicLong updatesReceived = new AtomicLong();
    private final AtomicLong invalidFrames = new AtomicLong();
    private volatile String invalidReason;
    private FeedPublisher publisher;

    @BeforeEach
    void startServer() {
        group = Transport.newGroup(1, "test-tp");
        final UpdateValidator validator = new UpdateValidator(SchemaRegistry.builtIn(0));
        server = new ServerBootstrap()
            .group(group)
            .channel(Transport.serverChannel())
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    child = ch;
                    ch.pipeline().addLast(FramePipeline.frameDecoder(16 << 20));
                    ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                        @Override
                        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
                            final int type = frame.getUnsignedByte(frame.readerIndex() + 5);
                            if (type == MessageType.HELLO) {
                                ctx.writeAndFlush(ControlFrames.feedAck(ctx.alloc(), 0)); // a tickerplant that has nothing of this feed
                                ctx.channel().config().setAutoRead(autoRead);
                                return;
                            }
                            if (validator.validate(frame, frame.readerIndex(), frame.readableBytes()) != ErrorCode.NONE) {
                                invalidReason = validator.reason();
                                invalidFrames.incrementAndGet();
                                return;
                            }
                            rowsReceived.addAndGet(frame.getIntLE(frame.readerIndex() + 20));
                            updatesReceived.incrementAndGet();
                            // the feed's number; acknowledged at once, as if journalled
                            ctx.writeAndFlush(ControlFrames.feedAck(ctx.alloc(), frame.getLongLE(frame.readerIndex() + 8)));
                        }
                    });
                }
            })
            .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    @AfterEach
    void stopServer() {
        if (publisher != null) {
            publisher.close();
        }
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private FeedPublisher connect() throws Exception {
        publisher = new FeedPublisher("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort(), "test-feed", null);
        return publisher.connect(5_000);
    }

    private FeedStatus runToEnd(final TickSource source, final RunSettings settings) throws Exception {
        final FeedRunner runner = new FeedRunner(source, connect(), settings, NanoClock.SYSTEM, null).start();
        assertThat(runner.awaitEnd(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("runner ended").isTrue();
        final FeedStatus status = runner.status();
        await(() -> rowsReceived.get() >= status.rowsSent() || invalidFrames.get() > 0);
        assertThat(invalidFrames.get()).as(invalidReason).isZero();
        assertThat(rowsReceived.get()).isEqualTo(status.rowsSent());
        assertThat(updatesReceived.get()).isEqualTo(status.updatesSent());
        return status;
    }

    @Test
    void shouldDeliverExactlyTheRowLimitAtMaxPaceWithOneRowPerUpdate() throws Exception {
        final RunSettings settings = new RunSettings(1, 10, 1, Pace.MAX, 1, 20_000, 0);
        final FeedStatus status = runToEnd(new SyntheticFeed("trade", 0, 100, 42, NanoClock.SYSTEM, false), settings);
        assertThat(status.state()).isEqualTo("finished");
        assertThat(status.stopReason()).isEqualTo("row limit reached");
        assertThat(status.rowsSent()).isEqualTo(20_000);
        assertThat(status.updatesSent()).isEqualTo(20_000);
        report("r=1", status);
    }

    @Test
    void shouldDeliverExactlyTheRowLimitAtMaxPaceWithHundredRowsPerUpdate() throws Exception {
        final RunSettings settings = new RunSettings(100, 10, 1, Pace.MAX, 1, 500_050, 0);
        final FeedStatus status = runToEnd(new SyntheticFeed("quote", 0, 100, 42, NanoClock.SYSTEM, false), settings);
        assertThat(status.rowsSent()).isEqualTo(500_050);
        assertThat(status.updatesSent()).isEqualTo(5_001);
        report("r=100", status);
    }

    @Test
    void shouldSendUUpdatesOfRRowsPerTimerTick() throws Exception {
        final RunSettings settings = new RunSettings(10, 2, 1, Pace.TIMER, 1, 2_000, 0);
        final FeedStatus status = runToEnd(new SyntheticFeed("trade", 0, 100, 42, NanoClock.SYSTEM, false), settings);
        assertThat(status.rowsSent()).isEqualTo(2_000);
        assertThat(status.updatesSent()).isEqualTo(200);
        assertThat(status.bytesSent()).isPositive();
    }

    @Test
    void shouldWaitOutBackPressureAndDropNothing() throws Exception {
        autoRead = false;
        final RunSettings settings = new RunSettings(100, 10, 1, Pace.MAX, 1, 2_000_000, 0);
        final FeedRunner runner = new FeedRunner(new SyntheticFeed("trade", 0, 100, 42, NanoClock.SYSTEM, false), connect(), settings,
            NanoClock.SYSTEM, null).start();
        await(() -> runner.status().backPressureWaits() > 0 || ended(runner));
        assertThat(runner.status().backPressureWaits()).as("the stalled reader pushed back").isPositive();
        assertThat(runner.status().running()).isTrue();
        child.config().setAutoRead(true);
        assertThat(runner.awaitEnd(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await(() -> rowsReceived.get() >= 2_000_000 || invalidFrames.get() > 0);
        assertThat(invalidFrames.get()).as(invalidReason).isZero();
        assertThat(rowsReceived.get()).isEqualTo(2_000_000);
        assertThat(runner.status().rowsSent()).isEqualTo(2_000_000);
    }

    @Test
    void shouldStopOnRequestAndCountOnlyWhatWasSent() throws Exception {
        final FeedRunner runner = new FeedRunner(new SyntheticFeed("trade", 0, 10, 1, NanoClock.SYSTEM, false), connect(),
            RunSettings.timer(5, 1, 1), NanoClock.SYSTEM, null).start();
        await(() -> runner.status().rowsSent() >= 100);
        runner.stop();
        assertThat(runner.awaitEnd(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        final FeedStatus status = runner.status();
        assertThat(status.state()).isEqualTo("stopped");
        await(() -> rowsReceived.get() >= status.rowsSent());
        assertThat(rowsReceived.get()).isEqualTo(status.rowsSent());
        assertThat(status.rowsSent() % 5).isZero();
    }

    @Test
    void shouldReplayRecordedTimesFasterBySpeedFactor() throws Exception {
        final Path file = FileSourceTest.data("highfrequency-taq-sample-2018-01").resolve("trades.csv.gz");
        // two days of trades at 10^6 x: about 0.14 s of schedule
        final RunSettings settings = new RunSettings(100, 1, 1, Pace.RECORDED, 1_000_000, 0, 0);
        final FeedStatus status = runToEnd(TaqSource.trades(file, 0), settings);
        assertThat(status.stopReason()).isEqualTo("end of data");
        assertThat(status.rowsSent()).isEqualTo(77_263);
    }

    @Test
    void shouldReplayAFileAtMaxPace() throws Exception {
        final Path dir = FileSourceTest.data("lobster-amzn-2012-06-21-level1");
        final FeedStatus status = runToEnd(LobsterSource.open(dir, "quote", 0), new RunSettings(50, 4, 1, Pace.MAX, 1, 0, 0));
        assertThat(status.rowsSent()).isEqualTo(57_515);
    }

    @Test
    void shouldFailWhenTheConnectionIsGone() throws Exception {
        final FeedPublisher p = connect();
        p.close();
        final FeedRunner runner = new FeedRunner(new SyntheticFeed("trade", 0, 10, 1, NanoClock.SYSTEM, false), p,
            RunSettings.timer(5, 1, 1), NanoClock.SYSTEM, null).start();
        assertThat(runner.awaitEnd(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(runner.status().state()).isEqualTo("failed");
        assertThat(runner.status().lastError()).contains("connection");
        assertThat(runner.status().rowsSent()).isZero();
    }

    @Test
    void shouldRefuseRecordedPaceForTheSyntheticFeed() {
        assertThatThrownBy(() -> new FeedRunner(new SyntheticFeed("trade", 0, 10, 1, NanoClock.SYSTEM, false), null,
            new RunSettings(1, 1, 1, Pace.RECORDED, 1, 0, 0), NanoClock.SYSTEM, null)).hasMessageContaining("recorded pace");
        assertThatThrownBy(() -> new RunSettings(0, 1, 1, Pace.MAX, 1, 0, 0)).hasMessageContaining("[r=0]");
    }

    private static boolean ended(final FeedRunner runner) {
        final String state = runner.status().state();
        return !"created".equals(state) && !"running".equals(state);
    }

    private static void report(final String label, final FeedStatus status) {
        System.out.printf("FeedRunner %s: %,d rows in %,d ms = %,.0f rows/s, %,d back-pressure waits (leak detection %s)%n", label,
            status.rowsSent(), status.elapsedMillis(), status.rowsPerSecond(), status.backPressureWaits(), ResourceLeakDetector.getLevel());
    }

    private static void await(final BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + DEADLINE);
            }
            Thread.sleep(2);
        }
    }
}
