package io.jtick.core.wire;

/**
 * Codes carried by ERROR frames; each is counted by the side that detects it. {@link #SHUTTING_DOWN} is
 * reserved (not sent today) and {@link #TRUNCATED_FRAME} is only counted: its peer is gone.
 */
public enum ErrorCode {
    NONE(0),
    MALFORMED_FRAME(1),
    UNSUPPORTED_VERSION(2),
    UNKNOWN_TABLE(3),
    WRONG_COLUMNS(4),
    WRONG_TYPE(5),
    OVERSIZED_FRAME(6),
    BAD_SYMBOL(7),
    UNEXPECTED_MESSAGE(8),
    SLOW_SUBSCRIBER(9),
    BAD_SUBSCRIPTION(10),
    JOURNAL_FAILURE(11),
    SHUTTING_DOWN(12),
    TRUNCATED_FRAME(13),
    /** A newer connection of the same numbered feed said HELLO: this one is closed (the newest wins). */
    FEED_REPLACED(14),
    /**
     * The listener asks for the API token (bound off loopback, or {@code tick.api.guard=always}) and
     * the HELLO carried none, a wrong one, or the listener has none configured; or a frame came before
     * the HELLO that had to carry it.
     */
    ACCESS_DENIED(15),
    /**
     * The server failed while handling this connection's input for a reason of its own (a fault it
     * did not expect), not because of what the client sent: nothing of the unfinished update was
     * published; a numbered feed reconnects and resends.
     */
    INTERNAL_ERROR(16),
    /**
     * Cluster mode: this tickerplant node is a follower and takes no feeds; the reason names the
     * leader as {@code leader=host:port} (its port of the same protocol, {@link LeaderHint}), or
     * {@code leader=unknown} during an election. The feed connects there and resends.
     */
    NOT_LEADER(17),
    /**
     * Cluster mode: this node cannot reach a majority of the members (or is not connected to the
     * cluster log yet), so it cannot commit the update and refuses it rather than taking what it
     * cannot replicate. A numbered feed reconnects and resends.
     */
    NO_QUORUM(18),
    /** REPLAY asks for something the HDB cannot serve: no partition in its range, a bad range, window, speed or batch size. */
    BAD_REPLAY(20);

    private static final ErrorCode[] BY_CODE = values();

    private final int code;

    ErrorCode(final int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ErrorCode fromCode(final int code) {
        for (final ErrorCode e : BY_CODE) {
            if (e.code == code) {
                return e;
            }
        }
        return MALFORMED_FRAME;
    }

    /** Lower-case, hyphenated: the form metrics tags and REST use. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
