package io.jtick.core.query.result;

/**
 * What a query did.
 *
 * @param rows         result rows
 * @param rowsScanned  rows the scan visited after sym-index and time-range narrowing
 * @param segments     segments (RDB table, HDB date partitions) read
 * @param elapsedNanos time from parse to the last row
 */
public record ResultStats(long rows, long rowsScanned, int segments, long elapsedNanos) {
}
