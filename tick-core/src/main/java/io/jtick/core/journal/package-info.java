/**
 * The tickerplant journal: one Chronicle Queue per trading day, one entry per published update, or per
 * table and timer tick in timer log+publish (kdb's tplog), replayed read-only ({@code -11!}).
 */
package io.jtick.core.journal;
