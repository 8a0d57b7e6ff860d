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
     */
    public static final int FEED_ACK = 9;
    /**
     * Consumer to HDB (replay port): stream tables of a date range in time order. Replay frames take
     * codes from 16 up, so that other frame families can grow below them.
     */
    public static final int REPLAY = 16;
    /** HDB to consumer: the replay ended (complete, cancelled or failed), with its counts. */
    public static final int REPLAY_DONE = 17;

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
            case REPLAY:
                return "replay";
            case REPLAY_DONE:
                return "replay-done";
            default:
                return "unknown(" + type + ")";
        }
    }
}
