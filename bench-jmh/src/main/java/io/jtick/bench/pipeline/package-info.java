/**
 * The tick path against its peers in one run ({@code ./jtick bench-pipeline}): the same trade
 * update frames sent through jtick (feed → tickerplant with its Chronicle journal → RDB
 * subscribers), a raw Chronicle Queue (appender → tailers) and an Apache Kafka broker in its own
 * JVM (producer → topic → consumers), each subscriber inserting into an RDB table and checking
 * every row arrived exactly once and in order.
 */
package io.jtick.bench.pipeline;
