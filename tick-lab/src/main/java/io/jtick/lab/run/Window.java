package io.jtick.lab.run;

/**
 * One settling window: medians over the window only, microseconds (null when nothing was recorded).
 *
 * @param endSeconds seconds since measuring started
 * @param updates    tpupd values recorded in the window (updates the TP handled)
 * @param received   rdbrecv values the first subscriber recorded in the window
 * @param tpupd      median TP update time
 * @param rdbrecv    median receive latency of the first subscriber
 */
public record Window(double endSeconds, long updates, long received, Double tpupd, Double rdbrecv) {
}
