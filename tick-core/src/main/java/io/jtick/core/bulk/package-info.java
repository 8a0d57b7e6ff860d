/**
 * Bulk import of recorded market-data files (TAQ, AlgoSeek, LOBSTER) into HDB date partitions by
 * each row's own date, written as the end-of-day write-down writes a day ({@code .Q.fs}/{@code .Q.dpft}).
 */
package io.jtick.core.bulk;
