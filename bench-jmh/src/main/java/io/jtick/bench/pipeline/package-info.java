/**
 * The tick path against its peers in one run ({@code ./jtick bench-pipeline}): the same trade
 * update frames sent through jtick (feed → tickerplant with its Chronicle journal → RDB
 * subscribers), a raw Chronicle Queue (appender → tailers) and Apache Kafka (producer → topic →
 * consumers) on one broker or on three replicating brokers, each broker in its own JVM; each
 * subscriber inserting into an RDB table and checking every row arrived exactly once and in order,
 * the feed timing its acknowledgements where the system gives them.
 */
package io.jtick.bench.pipeline;
