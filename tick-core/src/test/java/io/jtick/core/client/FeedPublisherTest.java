package io.jtick.core.client;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The feed client against a tickerplant the test plays on a loopback socket. */
@ExtendWith(LeakCheck.class)
class FeedPublisherTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final TableSchema TRADE = TableSchema.trade(0);

    private static FeedPublisher.Settings settings(final int port, final String name) {
        return FeedPublisher.Settings.of("127.0.0.1", port, name).withReconnect(Duration.ofMillis(20), Duration.ofMillis(200));
    }

    /** Accepts the feed's connection, checks its HELLO and answers it with {@code journalled}. */
    private static void answerHello(final FakeTickerplant tp, final String name, final long journalled) throws IOException {
        tp.accept();
        final ControlFrames.Hello hello = ControlFrames.readHello(tp.read());
        assertThat(hello).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, FrameDescriptor.PROTOCOL_VERSION, name,
            FrameDescriptor.HELLO_FLAG_NUMBERED));
        tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, journalled));
    }

    /** Connects {@code feed} (its connect waits for the HELLO answer, which this thread gives). */
    private static void connect(final FeedPublisher feed, final FakeTickerplant tp, final long journalled) throws Exception {
        final CompletableFuture<FeedPublisher> connected = CompletableFuture.supplyAsync(() -> {
            try {
                return feed.connect(WAIT.toMillis());
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        });
        answerHello(tp, feed.settings().name(), journalled);
        connected.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static ByteBuf trades(final FeedPublisher feed, final int first, final int count) {
        final ByteBuf b = feed.alloc().directBuffer();
        for (int id = first; id < first + count; id++) {
            TestSupport.trade(b, TRADE, id, 1_000L * id, "S" + id);
        }
        return b;
    }

    /** The next frame the feed sent: its number (sequence field) and its size column's first value. */
    private static long[] readUpdate(final FakeTickerplant tp) throws IOException {
        final ByteBuf f = tp.read();
        assertThat(ControlFrames.type(f, 0)).isEqualTo(MessageType.UPDATE);
        final io.jtick.core.wire.UpdateDecoder d = new io.jtick.core.wire.UpdateDecoder().wrap(f, 0);
        return new long[] {d.sequence(), d.int64(3, 0)};
    }

    @Test
    void shouldSayHelloNumberEveryFrameAndKeepThemUntilAcknowledged() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant(); FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-1"), null)) {
            connect(feed, tp, 0);
            assertThat(feed.isConnected()).isTrue();

            final ByteBuf two = trades(feed, 1, 2);
            final byte[] sent = ByteBufUtil.getBytes(two);
            assertThat(feed.send(two)).isTrue();
            final long[] first = readUpdate(tp);
            final long[] second = readUpdate(tp);
            assertThat(first).containsExactly(1, 1000);
            assertThat(second).containsExactly(2, 2000);
            assertThat(sent.length).as("the frames' bytes, numbers aside, are the caller's").isPositive();
            assertThat(feed.stats().bufferedUpdates()).isEqualTo(2);
            assertThat(feed.stats().bufferedBytes()).as("the memory kept: the buffer's capacity").isBetween((long) sent.length, 4096L);

            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 1));
            await("first acknowledged", WAIT, () -> feed.stats().acked() == 1);
            assertThat(feed.stats().bufferedUpdates()).as("freed only by whole sends").isEqualTo(2);
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 2));
            await("both acknowledged", WAIT, () -> feed.stats().bufferedBytes() == 0);
            assertThat(feed.awaitAcknowledged(WAIT.toNanos())).isTrue();
            assertThat(feed.stats().lastNumber()).isEqualTo(2);
        }
    }

    @Test
    void shouldReconnectAndResendFromTheNumberTheTickerplantAnswers() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant(); FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-2"), null)) {
            connect(feed, tp, 0);
            assertThat(feed.send(trades(feed, 1, 3))).isTrue();
            assertThat(feed.send(trades(feed, 4, 2))).isTrue();
            for (int k = 1; k <= 5; k++) {
                assertThat(readUpdate(tp)[0]).isEqualTo(k);
            }
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 2));
            await("acknowledged up to 2", WAIT, () -> feed.stats().acked() == 2);

            // the tickerplant goes away having journalled 1..3; the feed keeps sending meanwhile
            tp.closeConnection();
            await("connection gone", WAIT, () -> !feed.isConnected());
            assertThat(feed.send(trades(feed, 6, 1))).as("buffered while away").isTrue();
            answerHello(tp, "feed-2", 3);
            final List<long[]> resent = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                resent.add(readUpdate(tp));
            }
            assertThat(resent).extracting(r -> r[0]).containsExactly(4L, 5L, 6L);
            assertThat(resent).extracting(r -> r[1]).as("the same rows").containsExactly(4000L, 5000L, 6000L);
            await("reconnected", WAIT, () -> feed.stats().reconnects() == 1);
            assertThat(feed.stats().resentUpdates()).isEqualTo(3);
            assertThat(feed.stats().connectAttempts()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void shouldNumberOnFromWhatTheTickerplantHoldsOfItsName() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant(); FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-3"), null)) {
            connect(feed, tp, 41);
            assertThat(feed.send(trades(feed, 1, 1))).isTrue();
            assertThat(readUpdate(tp)[0]).isEqualTo(42);
            final ByteBuf notFrames = feed.alloc().directBuffer().writeZero(3);
            assertThatThrownBy(() -> feed.send(notFrames)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not whole UPDATE frames");
            assertThat(notFrames.refCnt()).isZero();
        }
    }

    @Test
    void shouldWaitAtCloseUntilTheTickerplantAcknowledgesWhatWasSentWhileConnected() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-close")
                 .withBuffer(1 << 20, FeedPublisher.WhenFull.BLOCK, Duration.ofSeconds(1)), null)) {
            connect(feed, tp, 0);
            assertThat(feed.send(trades(feed, 1, 3))).isTrue();
            final CompletableFuture<Boolean> closed = new CompletableFuture<>();
            final Thread closing = new Thread(() -> closed.complete(feed.close(Duration.ofSeconds(30))), "closing");
            closing.start();
            for (int k = 1; k <= 3; k++) {
                assertThat(readUpdate(tp)[0]).isEqualTo(k);
            }
            await("close waiting for acknowledgements", WAIT, () -> closing.getState() == Thread.State.TIMED_WAITING);
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 2));
            await("the first two acknowledged", WAIT, () -> feed.stats().acked() == 2);
            assertThat(closed).as("still waiting for the third").isNotDone();
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, 3));
            assertThat(closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("closed with nothing left unacknowledged").isTrue();
            assertThat(feed.isClosed()).isTrue();
            assertThat(tp.clientClosed()).as("the socket closed after the last acknowledgement").isTrue();
            closing.join(WAIT.toMillis());
        }
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-close-2")
                 .withBuffer(1 << 20, FeedPublisher.WhenFull.BLOCK, Duration.ofSeconds(1)), null)) {
            connect(feed, tp, 0);
            assertThat(feed.send(trades(feed, 1, 1))).isTrue();
            readUpdate(tp);
            final CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> feed.close(Duration.ofSeconds(30)));
            tp.closeConnection();
            assertThat(closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the connection dropped: no waiting for a reconnect").isFalse();
            assertThat(feed.close(Duration.ZERO)).as("closing again: nothing kept").isTrue();
        }
    }

    @Test
    void shouldFailOrBlockByPolicyWhenTheBufferIsFull() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher fail = new FeedPublisher(settings(tp.port(), "feed-4")
                 .withBuffer(1024, FeedPublisher.WhenFull.FAIL, Duration.ZERO), null)) {
            connect(fail, tp, 0);
            int taken = 0;
            while (fail.send(trades(fail, taken + 1, 1))) {
                taken++;
            }
            assertThat(taken).as("1 KiB of buffers of 256 bytes (the allocator's default), one frame each").isEqualTo(4);
            assertThat(fail.stats().refusedFull()).isEqualTo(1);
            assertThat(fail.stats().bufferedBytes()).isLessThanOrEqualTo(1024);
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, taken));
            await("room again", WAIT, () -> fail.stats().bufferedBytes() == 0);
            assertThat(fail.send(trades(fail, taken + 1, 1))).isTrue();
        }
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher block = new FeedPublisher(settings(tp.port(), "feed-5")
                 .withBuffer(1024, FeedPublisher.WhenFull.BLOCK, Duration.ofMillis(300)), null)) {
            connect(block, tp, 0);
            int taken = 0;
            final long t0 = System.nanoTime();
            while (block.send(trades(block, taken + 1, 1))) {
                taken++;
            }
            assertThat(System.nanoTime() - t0).as("waited for acknowledgements before refusing").isGreaterThanOrEqualTo(300_000_000L);
            assertThat(block.stats().refusedFull()).isEqualTo(1);
            final int acked = taken;
            final CompletableFuture<Boolean> blocked = CompletableFuture.supplyAsync(() -> block.send(trades(block, acked + 1, 1)));
            Thread.sleep(50);
            assertThat(blocked).as("blocked while full").isNotDone();
            tp.write(ControlFrames.feedAck(PooledByteBufAllocator.DEFAULT, acked));
            assertThat(blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("taken once acknowledgements made room").isTrue();
        }
    }

    @Test
    void shouldStopForGoodOnAnErrorItCannotFixAndReconnectAfterAJournalFailureOrAnInternalError() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant(); FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-6"), null)) {
            connect(feed, tp, 0);
            assertThat(feed.send(trades(feed, 1, 1))).isTrue();
            readUpdate(tp);
            tp.write(ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.JOURNAL_FAILURE, "disk full [sequence=1]"));
            tp.closeConnection();
            answerHello(tp, "feed-6", 0);
            assertThat(readUpdate(tp)[0]).as("resent after the journal failure").isEqualTo(1);
            assertThat(feed.lastError()).isEqualTo("journal-failure: disk full [sequence=1]");
            assertThat(feed.failure()).isNull();

            tp.write(ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.INTERNAL_ERROR, "internal error [cause=bug]"));
            tp.closeConnection();
            answerHello(tp, "feed-6", 0);
            assertThat(readUpdate(tp)[0]).as("resent after the TP's own fault").isEqualTo(1);
            assertThat(feed.failure()).isNull();

            tp.write(ControlFrames.error(PooledByteBufAllocator.DEFAULT, ErrorCode.UNKNOWN_TABLE, "unknown table [table=x]"));
            await("stopped", WAIT, feed::isClosed);
            assertThat(feed.failure()).isEqualTo("unknown-table: unknown table [table=x]");
            assertThat(feed.errorsReceived()).isEqualTo(3);
            final ByteBuf late = trades(feed, 2, 1);
            assertThat(feed.send(late)).isFalse();
            assertThat(late.refCnt()).as("released by send").isZero();
        }
    }

    @Test
    void shouldSpeakProtocolOneWhenNotNumbered() throws Exception {
        try (FakeTickerplant tp = new FakeTickerplant();
             FeedPublisher feed = new FeedPublisher(settings(tp.port(), "feed-7").withNumbered(false), null)) {
            final ByteBuf early = trades(feed, 1, 1);
            assertThat(feed.send(early)).as("not connected yet").isFalse();
            assertThat(early.refCnt()).isZero();
            feed.connect(WAIT.toMillis());
            tp.accept();
            assertThat(ControlFrames.readHello(tp.read())).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_FEED, 1, "feed-7"));
            assertThat(feed.send(trades(feed, 2, 1))).isTrue();
            assertThat(readUpdate(tp)).containsExactly(0, 2000);
        }
    }

    @Test
    void shouldNameTheTickerplantItCannotReachAndKeepTrying() throws Exception {
        // a port bound but not listening: connects to it are refused, and it cannot be handed to the
        // feed's own socket as its local port (a port merely released could be, and a connect to
        // itself then succeeds: TCP's simultaneous open)
        try (Socket reserved = new Socket()) {
            reserved.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final int port = reserved.getLocalPort();
            try (FeedPublisher feed = new FeedPublisher(settings(port, "feed-8"), null)) {
                assertThatThrownBy(() -> feed.connect(500)).isInstanceOf(IOException.class)
                    .hasMessageContaining("tp=127.0.0.1:" + port);
                assertThat(feed.isConnected()).isFalse();
                await("a few attempts, with backoff", WAIT, () -> feed.stats().connectAttempts() >= 3);
            }
        }
    }
}
