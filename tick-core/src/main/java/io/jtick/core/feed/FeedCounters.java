package io.jtick.core.feed;

import io.jtick.core.metrics.TickMetrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Totals across runs that a service exports ({@code tick.feed.rows}, {@code tick.feed.updates},
 * {@code tick.feed.bytes}, {@code tick.feed.backpressure.waits}, {@code tick.feed.rows.dropped}).
 */
public record FeedCounters(AtomicLong rows, AtomicLong updates, AtomicLong bytes, AtomicLong backPressureWaits, AtomicLong rowsDropped) {
    /** Counters registered in {@code metrics} under the {@code tick.feed.*} names. */
    public static FeedCounters register(final TickMetrics metrics) {
        return new FeedCounters(metrics.counter("tick.feed.rows"), metrics.counter("tick.feed.updates"),
            metrics.counter("tick.feed.bytes"), metrics.counter("tick.feed.backpressure.waits"), metrics.counter("tick.feed.rows.dropped"));
    }

    /** Counters nobody exports. */
    public static FeedCounters unregistered() {
        return new FeedCounters(new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong());
    }
}
