package io.jtick.core.tp;

/**
 * What the tickerplant does with a subscriber whose unsent backlog passes {@code tick.tp.max-subscriber-backlog}
 * ({@code tick.tp.slow-subscriber}).
 */
public enum SlowSubscribers {
    /**
     * It stays connected and is served from the journal: no more live updates are queued for it, the
     * backlog already queued drains, then it reads the journal from the update after the last one queued,
     * at its socket's pace, and goes back to live updates once it has read up to the TP's last published
     * update. What the TP holds for it stays bounded by the limit (in the timer modes plus the rest of the tick it passed
     * the limit in); it loses nothing and is not disconnected, unless it is still reading an earlier day when another day
     * ends ({@link SubscriberRegistry}).
     */
    JOURNAL("journal"),
    /**
     * It is disconnected: its unsent backlog is dropped (all but the frame partly on the wire), ERROR
     * slow-subscriber is written right behind it and the connection closes; a subscriber that comes back
     * subscribes again from its last sequence (catch-up). kdb+ subscribers are always treated so.
     */
    DISCONNECT("disconnect");

    private final String id;

    SlowSubscribers(final String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static SlowSubscribers parse(final String s) {
        for (final SlowSubscribers m : values()) {
            if (m.id.equalsIgnoreCase(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown slow-subscriber policy [tick.tp.slow-subscriber=" + s + ", known=journal|disconnect]");
    }
}
