/** The RDB service: wires the core real-time database to a tickerplant subscription and serves queries over REST. */
package io.jtick.rdb;
