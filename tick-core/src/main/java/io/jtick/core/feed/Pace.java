package io.jtick.core.feed;

import java.util.Locale;

/** How a {@link FeedRunner} paces its source. */
public enum Pace {
    /** Every timer tick, {@code u} updates of {@code r} rows (the white paper's feed). */
    TIMER,
    /** Updates back to back, as fast as the connection takes them. */
    MAX,
    /** Rows when their recorded time falls due, the recorded gaps divided by a speed factor; checked every timer tick. */
    RECORDED;

    /** Parses {@code timer}, {@code max} or {@code recorded} (any case). */
    public static Pace parse(final String name) {
        switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "timer":
                return TIMER;
            case "max":
                return MAX;
            case "recorded":
                return RECORDED;
            default:
                throw new IllegalArgumentException("unknown pace, expected timer, max or recorded [pace=" + name + "]");
        }
    }
}
