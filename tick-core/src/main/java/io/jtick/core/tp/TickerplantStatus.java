package io.jtick.core.tp;

import java.util.List;
import java.util.Map;

/**
 * A consistent snapshot of the tickerplant, taken on its own thread (for {@code GET /api/status}).
 *
 * @param feeds            feed connections open (numbered or not)
 * @param numberedFeeds    every numbered feed the TP knows (from its journal or a HELLO), connected or not
 * @param subscriberAlerts slow-subscriber alerts so far (a subscriber's backlog passed {@code subscriber-backlog-alert})
 */
public record TickerplantStatus(String name, String mode, long timerMillis, String date, long sequence, long journalSequence,
                                String journalDir, boolean broadcast, List<TableStatus> tables, List<SubscriberStatus> subscribers,
                                int feeds, List<FeedStatus> numberedFeeds, Map<String, Long> errors, long subscribersDisconnected,
                                long subscriberAlerts, Upstream upstream, long nextEndOfDayNanos) {

    /** Rows and updates of one table today. */
    public record TableStatus(String name, long rows, long updates) {
    }

    /**
     * One subscriber: what it asked for, whether it is live, how far behind its socket is.
     *
     * @param state {@code live}, {@code catching-up} (replaying the journal it asked for), {@code from-journal} (past the backlog limit,
     *              reading the journal until it is live again: {@code tick.tp.slow-subscriber=journal}) or {@code closing}
     * @param alert its backlog is over the alert level ({@code tick.tp.subscriber-backlog-alert}) in this episode
     */
    public record SubscriberStatus(long id, String name, String remote, List<String> tables, List<String> syms, String state,
                                   long backlogBytes, long updatesSent, long lastSequence, boolean alert) {
    }

    /**
     * One numbered feed.
     *
     * @param connected   a connection of it is open now
     * @param journalled  every update number up to it is in the journal: what HELLO answers
     * @param highest     the highest number in the journal (above {@code journalled} only after a gap in timer log+publish mode)
     * @param acked       the last number sent in FEED_ACK on the current connection
     * @param updates     its updates journalled since the TP started
     * @param duplicates  resent updates dropped because the journal already held them
     * @param gaps        times it skipped numbers
     * @param connections HELLOs since the TP started
     */
    public record FeedStatus(String name, boolean connected, long journalled, long highest, long acked, long updates,
                             long duplicates, long gaps, long connections) {
    }

    /** The TP this one is chained to, if any. */
    public record Upstream(String host, int port, boolean connected) {
    }
}
