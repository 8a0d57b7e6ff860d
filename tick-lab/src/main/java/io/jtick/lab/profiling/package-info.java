/**
 * The profiling matrix: each entry of an experiment run on a fresh in-process tickerplant, RDB subscribers and
 * the synthetic feed, and its command line.
 */
package io.jtick.lab.profiling;
