package io.jtick.core.feed;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A feed whose rows are a past day: an HDB replay ({@link TickClient#replay}) read from the HDB's
 * replay port and passed on frame by frame, as they come, so a tickerplant and its RDBs see the day
 * as if live (kdb+ users replay a day through a TP to test a strategy or rebuild an RDB). The HDB
 * does the pacing (as fast as possible, or the recorded gaps divided by the speed) and already sends
 * UPDATE frames; each is copied once into the runner's send buffer with its feed time set, and the
 * tickerplant stamps sequence and publish time as for any feed. Frames wait in a queue of
 * {@value #QUEUE_FRAMES}; when it is full the replay client stops reading, so TCP holds the HDB back
 * as long as the tickerplant holds the feed back. The rows keep their recorded times.
 *
 * <p>{@link #schema()} is the first table's; a replay of several tables sends frames of each.
 */
public final class HdbReplaySource implements TickSource {
    static final int QUEUE_FRAMES = 64;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final ArrayBlockingQueue<ByteBuf> frames = new ArrayBlockingQueue<>(QUEUE_FRAMES);
    private final CountDownLatch answered = new CountDownLatch(1);
    private final TickClient client;
    private final UpdateDecoder decoder = new UpdateDecoder();
    private volatile TableSchema schema;
    private volatile boolean done;
    private volatile boolean closed;
    private volatile String problem;
    private volatile ControlFrames.ReplayDone result;
    private ByteBuf head;
    private long rowsRead;

    private HdbReplaySource(final String host, final int port, final String token, final TlsClient tls,
                            final ControlFrames.Replay request) {
        this.client = TickClient.replay(TickClient.Settings.of(host, port, "feed-sim-hdb-replay").withToken(token), request,
            new Listener(), null, NanoClock.SYSTEM).tls(tls);
    }

    /**
     * Asks the HDB at {@code host:port} for the replay, presenting {@code token} (the API token; null: none),
     * over TLS when {@code tls} is on, and waits for its answer.
     *
     * @throws IllegalArgumentException the HDB refused the request (its error says why) or did not answer in time
     */
    public static HdbReplaySource open(final String host, final int port, final String token, final TlsClient tls,
                                       final ControlFrames.Replay request, final Duration timeout) {
        final HdbReplaySource s = new HdbReplaySource(host, port, token, tls, request);
        s.client.start();
        try {
            if (!s.answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                s.close();
                throw new IllegalArgumentException("the HDB did not answer the replay request within " + timeout.toMillis() + " ms [hdb="
                    + host + ":" + port + "]");
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            s.close();
            throw new IllegalArgumentException("interrupted while waiting for the HDB", e);
        }
        if (s.schema == null) {
            s.close();
            throw new IllegalArgumentException("the HDB refused the replay [hdb=" + host + ":" + port + "]: " + s.problem);
        }
        return s;
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    /** Recorded time of the next queued frame's first row; {@link #NO_TIME} while none is queued; {@link #END} after the last. */
    @Override
    public long nextEventTime() {
        if (head == null) {
            head = frames.poll();
        }
        if (head != null) {
            return decoder.wrap(head, head.readerIndex()).timestamp(0);
        }
        return done && frames.isEmpty() ? END : NO_TIME;
    }

    /** Appends the next frame the HDB sent (waiting up to 20 ms for one); its rows, whatever {@code maxRows} says. */
    @Override
    public int encodeUpdate(final UpdateEncoder encoder, final ByteBuf buffer, final int maxRows, final long dueBefore,
                            final long nowNanos) {
        ByteBuf f = head;
        head = null;
        if (f == null) {
            try {
                f = frames.poll(POLL_NANOS, TimeUnit.NANOSECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
            if (f == null) {
                return 0;
            }
        }
        try {
            final int at = buffer.writerIndex();
            buffer.writeBytes(f, f.readerIndex(), f.readableBytes());
            buffer.setLongLE(at + FrameDescriptor.SEQUENCE_OFFSET, 0);
            buffer.setLongLE(at + FrameDescriptor.TP_TIME_OFFSET, 0);
            buffer.setLongLE(at + FrameDescriptor.FEED_TIME_OFFSET, nowNanos);
            final int rows = buffer.getIntLE(at + FrameDescriptor.ROW_COUNT_OFFSET);
            rowsRead += rows;
            return rows;
        } finally {
            f.release();
        }
    }

    @Override
    public long rowsRead() {
        return rowsRead;
    }

    /** Why the replay ended early (the HDB's error, a cancel, a lost connection), or null. */
    public String problem() {
        return problem;
    }

    @Override
    public void close() {
        closed = true;
        client.close();
        if (head != null) {
            head.release();
            head = null;
        }
        for (ByteBuf b = frames.poll(); b != null; b = frames.poll()) {
            b.release();
        }
    }

    /** The replay client's side, on its event-loop thread: blocks while the queue is full (TCP back-pressure to the HDB). */
    private final class Listener implements TickListener {
        @Override
        public void onSubscribed(final ControlFrames.Subscribed s) {
            schema = s.schemas().values().iterator().next();
            answered.countDown();
        }

        @Override
        public void onUpdate(final TableSchema table, final UpdateDecoder update, final long receiveNanos) {
            final int length = update.frameLength();
            final ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
            copy.writeBytes(update.buffer(), update.offset(), length);
            try {
                while (!closed) {
                    if (frames.offer(copy, POLL_NANOS, TimeUnit.NANOSECONDS)) {
                        return;
                    }
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            copy.release();
        }

        @Override
        public void onReplayDone(final ControlFrames.ReplayDone d) {
            result = d;
            if (d.status() != ControlFrames.REPLAY_COMPLETE) {
                problem = "replay " + d.statusName() + ": " + d.message();
            }
            done = true;
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            problem = code.tag() + ": " + message;
            done = true;
            answered.countDown();
        }

        @Override
        public void onDisconnected() {
            if (result == null && problem == null) {
                problem = "the HDB closed the replay before it ended";
            }
            done = true;
            answered.countDown();
        }
    }
}
