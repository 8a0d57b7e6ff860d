/** jtick's hot path: schema, wire codec, journal, tickerplant, RDB tables and feeds, in plain Java. */
package io.jtick.core;
