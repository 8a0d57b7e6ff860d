package io.jtick.core.wire;

/** Frame types (byte 5 of every frame). */
public final class MessageType {
    /** First frame on a connection: role, protocol version, client name. */
    public static final int HELLO = 1;
    /** Subscriber to TP: tables, syms, from-sequence. */
    public static final int SUBSCRIBE = 2;
    /** A bulk update of one table (feed to TP, TP to subscribers, journal entries). */
    public static final int UPDATE = 3;
    /** TP to subscribers: the day ended. */
    public static final int END_OF_DAY = 4;
    /** Either way: a problem with what the peer sent; the sender may close after it. */
    public static final int ERROR = 5;
    /** Either way: liveness. */
    public static final int HEARTBEAT = 6;
    /** TP to subscriber: subscription accepted, with schemas and counters. */
    public static final int SUBSCRIBED = 7;
    /** TP to subscriber: journal catch-up done; what follows is live. */
    public static final int CATCH_UP_DONE = 8;
    /**
     * TP to a numbered feed (protocol 2): the feed's last update number the TP has journalled. The
     * first one answers HELLO (resend from the next number); later ones acknowledge progress.
     * Codes from 16 are the feed protocol's.
     */
    public static final int FEED_ACK = 16;

    private MessageType() {
    }

    public static String name(final int type) {
        switch (type) {
            case HELLO:
                return "hello";
            case SUBSCRIBE:
                return "subscribe";
            case UPDATE:
                return "update";
            case END_OF_DAY:
                return "end-of-day";
            case ERROR:
                return "error";
            case HEARTBEAT:
                return "heartbeat";
            case SUBSCRIBED:
                return "subscribed";
            case CATCH_UP_DONE:
                return "catch-up-done";
            case FEED_ACK:
                return "feed-ack";
            default:
                return "unknown(" + type + ")";
        }
    }
}
