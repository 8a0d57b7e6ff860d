/**
 * Real-time database ({@code r.q}): today's tables in memory, columns in fixed-size chunks with a
 * sym index, fed by a tickerplant subscription; at end of day written down as an HDB partition
 * ({@code .Q.hdpf}, {@link io.jtick.core.rdb.HdbWriteDown}), or rebuilt from the journal.
 */
package io.jtick.core.rdb;
