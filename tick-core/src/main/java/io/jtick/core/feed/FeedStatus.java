package io.jtick.core.feed;

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
 */
public record FeedStatus(String state, String stopReason, long rowsSent, long updatesSent, long bytesSent, double rowsPerSecond,
                         long backPressureWaits, long behindScheduleMillis, long maxBehindScheduleMillis, long elapsedMillis,
                         long tpErrors, String lastError) {
    public boolean running() {
        return "running".equals(state);
    }
}
