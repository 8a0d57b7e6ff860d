package io.jtick.core.tp;

import java.time.LocalDate;
import java.util.List;

/**
 * Cluster mode: the tickerplant state a log position stands for, as a snapshot holds it (the journal
 * itself is the node's own Chronicle Queue, rebuilt from the log when it is missing): the trading
 * day, the last journalled sequence, the publish mode and timer, and every numbered feed's journalled
 * numbers (so duplicates are dropped the same way on every node).
 */
public record ReplicatedState(LocalDate date, long sequence, PublishMode mode, long timerNanos, List<FeedNumbers> feeds) {

    /** One numbered feed: every number up to {@code journalled} is journalled, and {@code lo[k]..hi[k]} above it. */
    public record FeedNumbers(String name, long journalled, long[] lo, long[] hi) {
    }
}
