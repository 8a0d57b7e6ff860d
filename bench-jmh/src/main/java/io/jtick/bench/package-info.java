/**
 * JMH benchmarks of tick-core (tickerplant journal+publish, RDB insert, frame codec) and the
 * whole-pipeline benchmark command ({@link io.jtick.bench.PipelineBenchmark}); see bench-jmh/README.md.
 */
package io.jtick.bench;
