package io.jtick.bench.pipeline;

import io.jtick.bench.TradeFrames;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateDecoder;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The receiving end of one subscriber, the same for every system: records feed→subscriber latency
 * (receive time − the frame's feed time), checks that the int64 {@code size} column continues the
 * row numbering (every row once, in order), then hands the update to the subscriber's insert (an
 * RDB table). Called on the subscriber's thread only; the counters are read by the feed thread.
 */
final class Receiver {
    /** What the subscriber does with an update after the check. */
    @FunctionalInterface
    interface Insert {
        void insert(UpdateDecoder update, long receiveNanos);
    }

    /** Highest latency kept; a larger value is recorded as this. */
    private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Insert insert;
    private final Supplier<TableSegment> table;
    private final NanoClock clock;
    private final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    private long expected;
    private volatile long rows;
    private volatile long orderErrors;
    private volatile long target = Long.MAX_VALUE;
    private volatile long doneNanos;
    private volatile String firstError;

    /**
     * @param insert what the subscriber does with each update (a no-op when only checking)
     * @param table  the table the inserts end in, for the final check; null when nothing is stored
     */
    Receiver(final Insert insert, final Supplier<TableSegment> table, final NanoClock clock) {
        this.insert = insert;
        this.table = table;
        this.clock = clock;
    }

    /** Subscriber thread: one update as received. */
    void onUpdate(final UpdateDecoder update, final long receiveNanos) {
        final long lat = receiveNanos - update.feedTime();
        latency.recordValue(Math.max(0, Math.min(lat, MAX_LATENCY_NANOS)));
        final int n = update.rowCount();
        long next = expected;
        for (int k = 0; k < n; k++) {
            final long row = update.int64(TradeFrames.SIZE, k);
            if (row != next) {
                if (firstError == null) {
                    firstError = "row " + row + " where " + next + " was expected";
                }
                orderErrors = orderErrors + 1;
            }
            next = row + 1;
        }
        expected = next;
        insert.insert(update, receiveNanos);
        final long total = rows + n;
        if (total >= target && doneNanos == 0) {
            doneNanos = System.nanoTime();
        }
        rows = total;
    }

    /** Subscriber thread: the receive time to use when the transport gives none. */
    long now() {
        return clock.epochNanos();
    }

    /** Feed thread, before it sends: the row count whose arrival time {@link #doneNanos()} records. */
    void target(final long rowCount) {
        doneNanos = 0;
        target = rowCount;
    }

    /**
     * Feed thread: waits until {@code rowCount} rows have arrived.
     *
     * @param failure a transport's failure (feed refused, consumer error) or null; checked while waiting
     * @throws IllegalStateException on timeout or failure
     */
    void await(final long rowCount, final long timeoutMillis, final Supplier<String> failure) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (rows < rowCount) {
            final String f = failure.get();
            if (f != null || System.nanoTime() > deadline) {
                throw new IllegalStateException("subscriber has " + rows + " of " + rowCount + " rows [failure=" + f
                    + ", timeoutMillis=" + timeoutMillis + "]");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** Feed thread, while nothing is in flight (after a warm-up has fully arrived): forget latencies. */
    void resetLatency() {
        latency.reset();
    }

    /** Feed thread, once every row has arrived: a copy of the latency histogram. */
    Histogram latency() {
        return latency.copy();
    }

    long rows() {
        return rows;
    }

    long doneNanos() {
        return doneNanos;
    }

    long orderErrors() {
        return orderErrors;
    }

    String firstError() {
        return firstError;
    }

    /**
     * True when {@code rowCount} rows arrived with no order error and, when the subscriber stores them,
     * its table's {@code size} column is exactly 0, 1, ..., rowCount-1.
     */
    boolean exactlyOnceInOrder(final long rowCount) {
        if (rows != rowCount || orderErrors != 0) {
            return false;
        }
        return table == null || rowsInOrder(table.get(), rowCount);
    }

    /** True when the table's size column is 0, 1, ..., expected-1. */
    static boolean rowsInOrder(final TableSegment t, final long expected) {
        if (t == null || t.rowCount() != expected) {
            return false;
        }
        final ColumnChunk chunk = new ColumnChunk();
        for (int at = 0; at < expected; at += t.chunkRows()) {
            final int n = (int) Math.min(t.chunkRows(), expected - at);
            t.read(TradeFrames.SIZE, at, n, chunk);
            for (int i = 0; i < n; i++) {
                if (chunk.longs()[chunk.offset() + i] != at + i) {
                    return false;
                }
            }
        }
        return true;
    }
}
