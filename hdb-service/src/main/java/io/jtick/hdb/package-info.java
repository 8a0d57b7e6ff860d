/**
 * Historical database service: loads the date partitions under {@code tick.hdb.root}, answers
 * queries over date ranges, reloads when the RDB has written a day, moves partitions between
 * storage tiers (scheduled and on request) and runs the compression study (REST and CLI).
 */
package io.jtick.hdb;
