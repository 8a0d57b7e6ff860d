/** The tickerplant journal: one Chronicle Queue per trading day, one entry per update (kdb's tplog, replayed like {@code -11!}). */
package io.jtick.core.journal;
