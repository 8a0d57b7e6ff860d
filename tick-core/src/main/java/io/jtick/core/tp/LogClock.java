package io.jtick.core.tp;

import io.jtick.core.time.NanoClock;

/**
 * Cluster mode: the tickerplant's clock, reading the time of the log entry being applied while one is
 * ({@link #at}), so that every node stamps and rolls by the log, and the wall clock otherwise.
 * Tickerplant thread only.
 */
final class LogClock implements NanoClock {
    private final NanoClock wall;
    private long at = -1;

    LogClock(final NanoClock wall) {
        this.wall = wall;
    }

    /** The applied entry's time from now on; -1 when it has been applied. */
    void at(final long epochNanos) {
        at = epochNanos;
    }

    /** Runs {@code r} (end of day, a tick: rare) at the applied entry's time {@code epochNanos}. */
    void run(final long epochNanos, final Runnable r) {
        at = epochNanos;
        try {
            r.run();
        } finally {
            at = -1;
        }
    }

    @Override
    public long epochNanos() {
        return at >= 0 ? at : wall.epochNanos();
    }
}
