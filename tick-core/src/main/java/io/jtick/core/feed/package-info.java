/** Feeds: the synthetic white-paper feed, file replay sources (TAQ, AlgoSeek, LOBSTER) and the runner that paces them to a tickerplant. */
package io.jtick.core.feed;
