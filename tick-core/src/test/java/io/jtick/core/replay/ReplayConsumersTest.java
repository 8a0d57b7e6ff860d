package io.jtick.core.replay;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.ReplayRows;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many consumers on the replay port: one encode shared by every consumer of a range, a consumer that
 * never reads slowing no one, a consumer process killed with SIGKILL mid-stream freeing everything,
 * and the recorded pace.
 */
@ExtendWith(LeakCheck.class)
class ReplayConsumersTest {
    static final LocalDate DAY = LocalDate.of(2026, 5, 5);
    static final int ROWS = 300_000;

    @TempDir
    Path root;

    private HistoricalDatabase hdb;
    private ReplayServer server;
    private final TickMetrics metrics = new TickMetrics();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (hdb != null) {
            hdb.close();
        }
    }

    private MemorySegment start(final ReplaySettings settings) throws IOException {
        final MemorySegment day = SyntheticDay.segment("trade", DAY, ROWS, 50, 9);
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(day));
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, settings, metrics).start();
        return day;
    }

    private static ControlFrames.Replay all() {
        return ControlFrames.Replay.of(List.of("trade"), (int) DAY.toEpochDay(), (int) DAY.toEpochDay()).withRowsPerUpdate(1000);
    }

    /** A consumer that sends its request and never reads: its socket's receive buffer fills and TCP holds the HDB back. */
    private Socket stuckConsumer(final ControlFrames.Replay r) throws IOException {
        final Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
        final OutputStream out = s.getOutputStream();
        out.write(bytes(ControlFrames.hello(PooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_SUBSCRIBER, "never-reads")));
        out.write(bytes(ControlFrames.replay(PooledByteBufAllocator.DEFAULT, r)));
        out.flush();
        return s;
    }

    private static byte[] bytes(final ByteBuf b) {
        try {
            final byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            return a;
        } finally {
            b.release();
        }
    }

    @Test
    void shouldEncodeEachFrameOnceForEveryConsumerOfTheSameRange() throws Exception {
        start(ReplaySettings.defaults(root).withSharedFrames(4096).withThreads(2));
        try (Socket gate = stuckConsumer(all())) {
            TestSupport.await("the first consumer holds the stream", Duration.ofSeconds(10), () -> server.activeCount() == 1);
            final List<ReplayRows.Consumer> consumers = new ArrayList<>();
            final List<TickClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    final ReplayRows.Consumer c = new ReplayRows.Consumer(false);
                    final TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "c" + i), all(), c,
                        null, NanoClock.SYSTEM);
                    client.start();
                    consumers.add(c);
                    clients.add(client);
                }
                for (final ReplayRows.Consumer c : consumers) {
                    c.awaitEnd(Duration.ofSeconds(60));
                    assertThat(c.count).isEqualTo(ROWS);
                    assertThat(c.hash).as("same rows in the same order").isEqualTo(consumers.get(0).hash);
                    assertThat(c.outOfOrder).isZero();
                    assertThat(c.done.rows()).isEqualTo(ROWS);
                    assertThat(c.done.frames()).isEqualTo(consumers.get(0).done.frames());
                }
            } finally {
                clients.forEach(TickClient::close);
            }
            assertThat(server.streamCount()).isEqualTo(1);
            final long framesPerReplay = consumers.get(0).done.frames();
            assertThat(metrics.counter("tick.hdb.replay.encoded.frames").get()).as("frames encoded once for 11 consumers")
                .isEqualTo(framesPerReplay);
            assertThat(metrics.counter("tick.hdb.replay.frames").get()).isGreaterThanOrEqualTo(10 * framesPerReplay);
        }
        TestSupport.await("everything released", Duration.ofSeconds(10), () -> server.activeCount() == 0 && server.streamCount() == 0);
    }

    @Test
    void shouldKeepASlowerConsumerOnTheStreamWhileItKeepsTaking() throws Exception {
        // a ring of 8 frames: before, a consumer slower than the fastest fell out of it and its frames were read and
        // encoded again for it alone; now the reader waits for it while it keeps taking frames
        start(ReplaySettings.defaults(root).withSharedFrames(8).withThreads(2));
        // the second consumer shares the stream only if it asks while the first frame is still in the ring; until the
        // socket buffers fill, the first consumer takes frames as fast as they are read, so on a busy machine the second
        // can come too late and start a stream of its own: that attempt proves nothing, and is made again
        for (int attempt = 1; attempt <= 5; attempt++) {
            if (slowerStaysOnTheStream()) {
                return;
            }
        }
        Assumptions.abort("the second consumer never asked while the first frame was in the ring (5 attempts): a busy machine");
    }

    /** One attempt: false when the two consumers did not come to share one stream (nothing checked then). */
    private boolean slowerStaysOnTheStream() throws Exception {
        final ReplayRows.Consumer fast = new ReplayRows.Consumer(false);
        final ReplayRows.Consumer slow = new ReplayRows.Consumer(false);
        final TickListener slower = new TickListener() {
            @Override
            public void onSubscribed(final ControlFrames.Subscribed s) {
                slow.onSubscribed(s);
            }

            @Override
            public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
                slow.onUpdate(schema, update, receiveNanos);
                LockSupport.parkNanos(500_000L);
            }

            @Override
            public void onReplayDone(final ControlFrames.ReplayDone d) {
                slow.onReplayDone(d);
            }

            @Override
            public void onError(final ErrorCode code, final String message) {
                slow.onError(code, message);
            }

            @Override
            public void onDisconnected() {
                slow.onDisconnected();
            }
        };
        final long detached0 = metrics.counter("tick.hdb.replay.detached").get();
        final long encoded0 = metrics.counter("tick.hdb.replay.encoded.frames").get();
        boolean shared;
        // the slower one starts the stream, taking a frame every half millisecond once its socket buffers are full
        try (TickClient b = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "slow"), all(), slower, null,
                 NanoClock.SYSTEM);
             TickClient a = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "fast"), all(), fast, null,
                 NanoClock.SYSTEM)) {
            b.start();
            TestSupport.await("the slower consumer holds the stream", Duration.ofSeconds(10), () -> server.activeCount() == 1);
            a.start();
            TestSupport.await("both replaying", Duration.ofSeconds(10), () -> server.activeCount() == 2);
            shared = server.streamCount() == 1;
            if (shared) {
                for (final ReplayRows.Consumer c : List.of(fast, slow)) {
                    c.awaitEnd(Duration.ofSeconds(60));
                    assertThat(c.done.statusName()).isEqualTo("complete");
                    assertThat(c.count).isEqualTo(ROWS);
                    assertThat(c.outOfOrder).isZero();
                }
                assertThat(slow.hash).isEqualTo(fast.hash);
                assertThat(metrics.counter("tick.hdb.replay.detached").get() - detached0).as("the slower consumer never left the stream")
                    .isZero();
                assertThat(metrics.counter("tick.hdb.replay.encoded.frames").get() - encoded0).as("every frame encoded once for both")
                    .isEqualTo(fast.done.frames());
            }
        }
        TestSupport.await("everything released", Duration.ofSeconds(10), () -> server.activeCount() == 0 && server.streamCount() == 0);
        return shared;
    }

    @Test
    void shouldServeTwentyConsumersWhileOneNeverReads() throws Exception {
        start(ReplaySettings.defaults(root).withSharedFrames(8).withWriteBuffer(32 * 1024, 64 * 1024).withThreads(2));
        final ReplayRows.Consumer reference = new ReplayRows.Consumer(false);
        try (TickClient alone = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "alone"), all(), reference, null,
            NanoClock.SYSTEM)) {
            alone.start();
            reference.awaitEnd(Duration.ofSeconds(60));
        }
        final long expectedHash = reference.hash;
        try (Socket stuck = stuckConsumer(all())) {
            final List<ReplayRows.Consumer> consumers = new ArrayList<>();
            final List<TickClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 19; i++) {
                    final ReplayRows.Consumer c = new ReplayRows.Consumer(false);
                    final TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "c" + i), all(), c,
                        null, NanoClock.SYSTEM);
                    client.start();
                    consumers.add(c);
                    clients.add(client);
                }
                for (final ReplayRows.Consumer c : consumers) {
                    c.awaitEnd(Duration.ofSeconds(60));
                    assertThat(c.done.statusName()).isEqualTo("complete");
                    assertThat(c.count).isEqualTo(ROWS);
                    assertThat(c.hash).isEqualTo(expectedHash);
                    assertThat(c.outOfOrder).isZero();
                }
            } finally {
                clients.forEach(TickClient::close);
            }
            final List<ReplayStatus> running = server.replays().stream().filter(s -> "running".equals(s.state())).toList();
            assertThat(running).hasSize(1);
            assertThat(running.get(0).consumer()).isEqualTo("never-reads");
            assertThat(running.get(0).rowsSent()).isLessThan(ROWS);
            // bounded: at most the ring of 8 frames of ~1000 rows and the reader's window buffers (a day here is ~11 MB of rows)
            assertThat(running.get(0).heldBytes()).isPositive().isLessThan(8L * 40_000 + (16L << 20));
        }
        TestSupport.await("the stuck consumer's replay released", Duration.ofSeconds(10),
            () -> server.activeCount() == 0 && server.streamCount() == 0);
        assertThat(server.replays().get(0).state()).isEqualTo("disconnected");
    }

    @Test
    void shouldServeOtherStreamsWhileOneWaitsForAStalledConsumer() throws Exception {
        // one reader thread, and a stream that would wait 10 minutes for its stalled consumer: a reader that blocked
        // its thread for that pause would starve every other stream; one that holds no thread while it waits does not
        start(ReplaySettings.defaults(root).withSharedFrames(8).withWriteBuffer(32 * 1024, 64 * 1024).withThreads(1)
            .withStallMillis(600_000));
        // the second consumer shares the stuck one's stream only if it asks while the first frame is still in the ring (the
        // stuck one takes frames until its socket buffers fill): when it came too late, the attempt proves nothing and is made again
        for (int attempt = 1; attempt <= 5; attempt++) {
            if (otherStreamServedWhileOneWaits()) {
                return;
            }
        }
        Assumptions.abort("the second consumer never asked while the first frame was in the ring (5 attempts): a busy machine");
    }

    /** One attempt: false when the waiting consumer did not come to share the stuck one's stream (nothing checked then). */
    private boolean otherStreamServedWhileOneWaits() throws Exception {
        final ReplayRows.Consumer waiting = new ReplayRows.Consumer(false);
        final ReplayRows.Consumer other = new ReplayRows.Consumer(false);
        final long detached0 = metrics.counter("tick.hdb.replay.detached").get();
        boolean shared;
        try (Socket stuck = stuckConsumer(all())) {
            TestSupport.await("the stuck consumer holds the stream", Duration.ofSeconds(10), () -> server.activeCount() == 1);
            try (TickClient w = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "waiting"), all(), waiting, null,
                     NanoClock.SYSTEM);
                 TickClient o = TickClient.replay(TickClient.Settings.of("127.0.0.1", server.port(), "other"),
                     all().withRowsPerUpdate(999), other, null, NanoClock.SYSTEM)) {
                w.start();
                TestSupport.await("the second consumer a ring ahead of the stuck one, or done on its own", Duration.ofSeconds(10),
                    () -> waiting.count >= 8 * 1000 || waiting.done != null);
                // on the stuck one's stream it cannot finish (the ring waits for the stuck one); on a stream of its own it can
                shared = server.activeCount() == 2 && server.streamCount() == 1 && waiting.done == null;
                if (shared) {
                    o.start();
                    other.awaitEnd(Duration.ofSeconds(60));
                    assertThat(other.done.statusName()).isEqualTo("complete");
                    assertThat(other.count).isEqualTo(ROWS);
                    assertThat(waiting.count).as("still waiting for the stalled consumer").isLessThan(ROWS);
                    assertThat(metrics.counter("tick.hdb.replay.detached").get() - detached0).isZero();
                    stuck.close();
                    // the stalled consumer's leaving starts the reader again
                    waiting.awaitEnd(Duration.ofSeconds(60));
                    assertThat(waiting.done.statusName()).isEqualTo("complete");
                    assertThat(waiting.count).isEqualTo(ROWS);
                    assertThat(waiting.outOfOrder).isZero();
                    assertThat(waiting.hash).isEqualTo(other.hash);
                }
            }
        }
        TestSupport.await("everything released", Duration.ofSeconds(10), () -> server.activeCount() == 0 && server.streamCount() == 0);
        return shared;
    }

    @Test
    void shouldFreeEverythingWhenAConsumerProcessIsKilledMidStream() throws Exception {
        start(ReplaySettings.defaults(root).withThreads(2));
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("--sun-misc")) {
                command.add(a);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SlowReplayConsumer.class.getName(),
            Integer.toString(server.port()), Long.toString(DAY.toEpochDay())));
        final Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().close();
        try {
            TestSupport.await("the consumer process is mid-stream", Duration.ofSeconds(30),
                () -> server.replays().stream().anyMatch(s -> "running".equals(s.state()) && s.rowsSent() > 0));
            p.destroyForcibly();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("killed by SIGKILL").isEqualTo(137);
        } finally {
            p.destroyForcibly();
        }
        TestSupport.await("the killed consumer's replay released", Duration.ofSeconds(10),
            () -> server.activeCount() == 0 && server.streamCount() == 0);
        final ReplayStatus ended = server.replays().get(0);
        assertThat(ended.state()).isEqualTo("disconnected");
        assertThat(ended.rowsSent()).isPositive().isLessThan(ROWS);
        assertThat(metrics.counter("tick.hdb.replay.ended|status=disconnected").get()).isEqualTo(1);
    }

    @Test
    void shouldKeepTheRecordedGapsAtRecordedPace() throws Exception {
        final LocalDate d = DAY;
        final long t0 = d.atTime(LocalTime.of(14, 0)).toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L;
        final long[] offsetsMillis = {0, 2, 4, 504, 506, 1006, 1008, 1010, 1510};
        final MemorySegment.Builder b = MemorySegment.builder(TableSchema.trade(0), (int) d.toEpochDay());
        for (final long off : offsetsMillis) {
            for (int k = 0; k < 3; k++) {
                b.value(t0 + off * 1_000_000L + k * 100_000L).symbol("S" + k).value(10.0 + off).value(100L).value((byte) 'N').endRow();
            }
        }
        final MemorySegment day = b.build();
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(d, List.of(day));
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, ReplaySettings.defaults(root), metrics).start();
        final ReplayRows.Consumer c = ReplayRows.replay(server.port(), all().withSpeed(1));
        assertThat(c.rows).containsExactlyElementsOf(ReplayRows.expected(List.of(day), null));
        assertThat(c.frameRows).as("one frame per burst: bursts are 2 ms or more apart, a frame spans at most 1 ms at speed 1")
            .hasSize(offsetsMillis.length).containsOnly(3);
        // compared with each other only, no time limit: every frame after a 500 ms recorded gap arrived after a longer gap than
        // the typical (median) frame after a 2 ms gap; a scheduling hiccup can stretch one small gap, not shrink a big one by 500 ms
        final List<Long> small = new ArrayList<>();
        final List<Long> big = new ArrayList<>();
        for (int i = 1; i < offsetsMillis.length; i++) {
            final long arrival = c.frameNanos.get(i) - c.frameNanos.get(i - 1);
            (offsetsMillis[i] - offsetsMillis[i - 1] >= 500 ? big : small).add(arrival);
        }
        small.sort(null);
        assertThat(big).hasSize(3);
        assertThat(big).allSatisfy(gap -> assertThat(gap).isGreaterThan(small.get(small.size() / 2)));
    }
}
