package io.jtick.bench.pipeline;

import io.jtick.core.time.NanoClock;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Feed → acknowledgement latency of one run: from an update's feed time (stamped as it is encoded,
 * the same start as feed → subscriber) to the moment the feed learns that the system has taken it
 * for good (jtick's FEED_ACK: journalled; Kafka's producer callback: on the in-sync replicas the
 * producer's {@code acks} asks for). Acknowledgements arrive in two shapes: one per update (Kafka's
 * callback, {@link #acknowledged}) or cumulative by number (a FEED_ACK covers every update up to its
 * number, {@link #sent} then {@link #acknowledgedThrough}).
 *
 * <p>Threads: the feed thread calls {@link #sent}, {@link #await}, {@link #reset} and
 * {@link #histogram}; one acknowledging thread (the feed connection's event loop, Kafka's producer
 * I/O thread) calls {@link #acknowledged} or {@link #acknowledgedThrough}. A numbered update's feed
 * time is written before the send that carries it and read after its acknowledgement, which the
 * transport orders (FeedPublisher hands both over under its monitor); values go into a
 * {@link Recorder}, safe to read and reset from the feed thread.
 */
final class AckLatency {
    /** Highest latency kept; a larger value is recorded as this. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final NanoClock clock;
    private final Recorder recorder = new Recorder(MAX_LATENCY_NANOS, 3);
    private final AtomicLong count = new AtomicLong();
    /** Numbered: feed times by number, a ring of {@code mask + 1}; null when acknowledgements name their update. */
    private final long[] feedTimes;
    private final int mask;
    /** Feed thread: the number the next update sent gets. */
    private long nextNumber;
    /** Acknowledging thread: every number up to this one is acknowledged. */
    private volatile long ackedThrough;

    private AckLatency(final NanoClock clock, final long firstNumber, final int capacity) {
        this.clock = clock;
        this.feedTimes = capacity > 0 ? new long[capacity] : null;
        this.mask = capacity - 1;
        this.nextNumber = firstNumber;
        this.ackedThrough = firstNumber - 1;
    }

    /** Each acknowledgement names its update ({@link #acknowledged}). */
    static AckLatency perUpdate(final NanoClock clock) {
        return new AckLatency(clock, 0, 0);
    }

    /**
     * Acknowledgements cover every update up to a number; updates are numbered from {@code firstNumber}
     * on in the order sent, and at most {@code inFlight} (rounded up to a power of two) may be sent and
     * not yet acknowledged.
     */
    static AckLatency numbered(final NanoClock clock, final long firstNumber, final int inFlight) {
        return new AckLatency(clock, firstNumber, Integer.highestOneBit(Math.max(2, inFlight) - 1) << 1);
    }

    /** Acknowledging thread: the update fed at {@code feedNanos} is acknowledged now. */
    void acknowledged(final long feedNanos) {
        record(clock.epochNanos() - feedNanos);
    }

    /**
     * Feed thread, before the send that carries it: the next numbered update, fed at {@code feedNanos}.
     *
     * @throws IllegalStateException more updates unacknowledged than the ring holds
     */
    void sent(final long feedNanos) {
        if (nextNumber - ackedThrough > feedTimes.length) {
            throw new IllegalStateException("more updates unacknowledged than the acknowledgement ring holds [unacknowledged="
                + (nextNumber - ackedThrough - 1) + ", ring=" + feedTimes.length + "]");
        }
        feedTimes[(int) (nextNumber & mask)] = feedNanos;
        nextNumber++;
    }

    /** Acknowledging thread: every numbered update up to {@code number} is acknowledged now. */
    void acknowledgedThrough(final long number) {
        final long now = clock.epochNanos();
        long n = ackedThrough;
        while (n < number) {
            n++;
            record(now - feedTimes[(int) (n & mask)]);
        }
        ackedThrough = n;
    }

    private void record(final long latency) {
        recorder.recordValue(Math.max(0, Math.min(latency, MAX_LATENCY_NANOS)));
        count.incrementAndGet();
    }

    /** Acknowledgements recorded so far (every update once). */
    long count() {
        return count.get();
    }

    /**
     * Feed thread: waits until {@code updates} acknowledgements have arrived.
     *
     * @param failure a transport's failure, or null; checked while waiting
     * @throws IllegalStateException on timeout or failure
     */
    void await(final long updates, final long timeoutMillis, final Supplier<String> failure) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (count.get() < updates) {
            final String f = failure.get();
            if (f != null || System.nanoTime() > deadline) {
                throw new IllegalStateException("acknowledged " + count.get() + " of " + updates + " updates [failure=" + f
                    + ", timeoutMillis=" + timeoutMillis + "]");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** Feed thread, once every update sent so far is acknowledged (after the warm-up): forget the latencies. */
    void reset() {
        recorder.reset();
    }

    /** Feed thread, once every update is acknowledged: the latencies since the last reset. */
    Histogram histogram() {
        return recorder.getIntervalHistogram();
    }
}
