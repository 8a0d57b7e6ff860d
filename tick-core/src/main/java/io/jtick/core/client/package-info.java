/**
 * Netty clients of a tickerplant: a subscriber ({@link io.jtick.core.client.TickClient}, which a chained
 * tickerplant uses upstream) and a feed ({@link io.jtick.core.client.FeedPublisher}).
 */
package io.jtick.core.client;
