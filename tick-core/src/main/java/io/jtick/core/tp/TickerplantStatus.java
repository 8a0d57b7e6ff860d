package io.jtick.core.tp;

import java.util.List;
import java.util.Map;

/** A consistent snapshot of the tickerplant, taken on its own thread (for {@code GET /api/status}). */
public record TickerplantStatus(String name, String mode, long timerMillis, String date, long sequence, long journalSequence,
                                String journalDir, boolean broadcast, List<TableStatus> tables, List<SubscriberStatus> subscribers,
                                int feeds, Map<String, Long> errors, long subscribersDisconnected, Upstream upstream,
                                long nextEndOfDayNanos) {

    /** Rows and updates of one table today. */
    public record TableStatus(String name, long rows, long updates) {
    }

    /** One subscriber: what it asked for, whether it is live, how far behind its socket is. */
    public record SubscriberStatus(long id, String name, String remote, List<String> tables, List<String> syms, String state,
                                   long backlogBytes, long updatesSent, long lastSequence) {
    }

    /** The TP this one is chained to, if any. */
    public record Upstream(String host, int port, boolean connected) {
    }
}
