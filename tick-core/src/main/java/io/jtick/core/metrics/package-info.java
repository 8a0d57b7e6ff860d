/** Lock-free latency histograms and counters the engines record into; services export them (Micrometer never runs per tick). */
package io.jtick.core.metrics;
