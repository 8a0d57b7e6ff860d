package io.jtick.core.feed;

/**
 * How a {@link FeedRunner} sends: {@code r} rows per update, {@code u} updates per timer tick of
 * {@code t} ms, the pace, the replay speed factor, and when to stop (0 = no limit).
 *
 * @param rowsPerUpdate     r, at least 1
 * @param updatesPerTick    u, at least 1
 * @param timerMillis       t, at least 1
 * @param pace              timer, max or recorded
 * @param speed             recorded pace only: 100 replays 100x faster than recorded
 * @param maxRows           stop after this many rows; 0 = unlimited
 * @param maxDurationMillis stop after this long; 0 = unlimited
 */
public record RunSettings(int rowsPerUpdate, int updatesPerTick, int timerMillis, Pace pace, double speed, long maxRows,
                          long maxDurationMillis) {
    public RunSettings {
        if (rowsPerUpdate < 1 || rowsPerUpdate > 1_000_000) {
            throw new IllegalArgumentException("r (rows per update) must be 1..1000000 [r=" + rowsPerUpdate + "]");
        }
        if (updatesPerTick < 1 || updatesPerTick > 100_000) {
            throw new IllegalArgumentException("u (updates per tick) must be 1..100000 [u=" + updatesPerTick + "]");
        }
        if (timerMillis < 1 || timerMillis > 3_600_000) {
            throw new IllegalArgumentException("t (timer ms) must be 1..3600000 [t=" + timerMillis + "]");
        }
        if (pace == null) {
            throw new IllegalArgumentException("pace is required");
        }
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number [speed=" + speed + "]");
        }
        if (maxRows < 0 || maxDurationMillis < 0) {
            throw new IllegalArgumentException("limits must not be negative [maxRows=" + maxRows
                + ", maxDurationMillis=" + maxDurationMillis + "]");
        }
    }

    /** The white paper's timer feed: u updates of r rows every t ms, no limits. */
    public static RunSettings timer(final int r, final int u, final int t) {
        return new RunSettings(r, u, t, Pace.TIMER, 1, 0, 0);
    }

    public RunSettings withLimits(final long rows, final long durationMillis) {
        return new RunSettings(rowsPerUpdate, updatesPerTick, timerMillis, pace, speed, rows, durationMillis);
    }
}
