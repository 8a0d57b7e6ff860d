package io.jtick.core.tp;

import io.jtick.core.wire.ErrorCode;

/**
 * Who sent an update to the {@link Tickerplant} (a feed connection, the upstream TP): told when the
 * timer cannot journal it, and, for a numbered feed, how far the journal holds it.
 */
public interface UpdateSource {
    /** The update was refused after {@link Tickerplant#onUpdate} accepted it into a timer batch; nothing of it was published. */
    void refuse(ErrorCode code, String reason);

    /** The numbered feed this source said HELLO as ({@link Tickerplant#onFeedHello}), or null: its updates carry no number. */
    default FeedRegistry.Feed feed() {
        return null;
    }

    /** True for a kdb+ client (its refusals name the leader's kdb+ port in cluster mode). */
    default boolean kdb() {
        return false;
    }

    /** FEED_ACK: the journal holds this numbered feed's updates up to {@code feedSequence}. */
    default void acknowledge(final long feedSequence) {
    }

    /** Cluster mode: the log is back-pressured; read nothing more from this source until {@link #resumeInput}. */
    default void pauseInput() {
    }

    /** Cluster mode: the log has taken what waited; read this source again. */
    default void resumeInput() {
    }
}
