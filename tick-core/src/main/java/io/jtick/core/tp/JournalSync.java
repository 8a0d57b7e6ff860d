package io.jtick.core.tp;

/**
 * What a FEED_ACK promises ({@code tick.tp.journal.sync}): that the journal holds the update in the
 * page cache, or on disk.
 */
public enum JournalSync {
    /** Acknowledged = journalled (in the page cache); the kernel writes it back when it will. Nothing on the hot path. */
    NONE("none"),
    /**
     * Acknowledged = on disk: the journal is forced before any FEED_ACK (or kdb+ sync {@code .u.upd}
     * answer) that covers entries not yet forced, once per batch of work (group commit: the end of a
     * feed read batch, the timer tick, the acknowledgement housekeeping, end of day).
     */
    BATCH("batch");

    private final String id;

    JournalSync(final String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static JournalSync parse(final String s) {
        for (final JournalSync m : values()) {
            if (m.id.equalsIgnoreCase(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown journal sync [tick.tp.journal.sync=" + s + ", known=none|batch]");
    }
}
