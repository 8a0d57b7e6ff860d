/**
 * JMH benchmarks of tick-core (tickerplant journal+publish, RDB insert, frame codec); the
 * whole-pipeline benchmark against its peers is in {@link io.jtick.bench.pipeline}; see bench-jmh/README.md.
 */
package io.jtick.bench;
