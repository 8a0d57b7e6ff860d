package io.jtick.core.feed;

import io.jtick.core.client.FeedPublisher;

/**
 * A snapshot of a {@link FeedRunner}.
 *
 * @param state                 created, running, finished (source, row or time limit reached), stopped, or failed
 * @param stopReason            why it ended, null while running
 * @param rowsSent              rows handed to the connection
 * @param updatesSent           UPDATE frames handed to the connection
 * @param bytesSent             frame bytes handed to the connection
 * @param rowsPerSecond         rows sent / seconds since start
 * @param backPressureWaits     sends refused by back pressure, each followed by a wait and a retry
 * @param behindScheduleMillis  how late the last tick started against the fixed-rate schedule
 * @param maxBehindScheduleMillis the worst lateness so far
 * @param elapsedMillis         time since start (to the end once ended)
 * @param tpErrors              error frames received from the tickerplant
 * @param lastError             the last tickerplant or connection error, or null
 * @param rowsDropped           rows refused by a full buffer under the {@code FAIL} policy (0 under {@code BLOCK})
 * @param connection            the publisher's connection, acknowledgements and buffer
 */
public record FeedStatus(String state, String stopReason, long rowsSent, long updatesSent, long bytesSent, double rowsPerSecond,
                         long backPressureWaits, long behindScheduleMillis, long maxBehindScheduleMillis, long elapsedMillis,
                         long tpErrors, String lastError, long rowsDropped, FeedPublisher.Stats connection) {
    public boolean running() {
        return "running".equals(state);
    }
}
