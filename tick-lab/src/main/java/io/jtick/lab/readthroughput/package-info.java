/**
 * The HDB read-throughput study (TimeBase's method): a day written as a partition, replayed to many consumers
 * over loopback, rows and bytes per second.
 */
package io.jtick.lab.readthroughput;
