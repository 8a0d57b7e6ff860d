/**
 * The laboratory, above the feed, the RDB and the HDB: the profiling experiments (the KX white
 * paper's rows per update, row size, publish frequency, subscribers, and AquaQ's broadcast study)
 * run on a fresh in-process tickerplant, real subscriber connections and the synthetic feed, with
 * result tables laid out like the paper's; the compression study's command line; and
 * {@link io.jtick.core.lab.TableLoader}, which fills RDB tables from feed sources without a
 * tickerplant.
 */
package io.jtick.core.lab;
