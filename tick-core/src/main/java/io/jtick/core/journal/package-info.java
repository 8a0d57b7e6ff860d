/** The tickerplant journal: one Chronicle Queue per trading day, one entry per update (kdb's tplog), replayed read-only ({@code -11!}). */
package io.jtick.core.journal;
