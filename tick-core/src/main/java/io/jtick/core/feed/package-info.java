/**
 * Feeds: the synthetic white-paper feed and its trading day, the file sources (TAQ, AlgoSeek, LOBSTER) and the runner
 * that paces them to a tickerplant.
 */
package io.jtick.core.feed;
