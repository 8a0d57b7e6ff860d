/**
 * The profiling laboratory: the KX white paper's experiments (rows per update, row size, publish
 * frequency, subscribers) and AquaQ's broadcast study run on a fresh in-process tickerplant, real
 * subscriber connections and the synthetic feed, with result tables laid out like the paper's.
 */
package io.jtick.core.lab;
