package io.jtick.core.replay;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateDecoder;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * A consumer process for {@link ReplayConsumersTest}: replays the trade table of one day from a
 * replay port, taking 20 ms per frame, until it is killed. Arguments: port, epoch day.
 */
public final class SlowReplayConsumer {
    private SlowReplayConsumer() {
    }

    public static void main(final String[] args) throws InterruptedException {
        final int port = Integer.parseInt(args[0]);
        final int day = Integer.parseInt(args[1]);
        final CountDownLatch ended = new CountDownLatch(1);
        final TickListener slow = new TickListener() {
            @Override
            public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
                LockSupport.parkNanos(20_000_000L);
            }

            @Override
            public void onDisconnected() {
                ended.countDown();
            }
        };
        try (TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", port, "slow-process"),
            ControlFrames.Replay.of(List.of("trade"), day, day).withRowsPerUpdate(1000), slow, null, NanoClock.SYSTEM)) {
            client.start();
            ended.await();
        }
    }
}
