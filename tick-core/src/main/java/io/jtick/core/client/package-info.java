/**
 * Netty clients of a tickerplant, or of a TP cluster's members ({@link io.jtick.core.client.TickerplantAddresses}):
 * a subscriber ({@link io.jtick.core.client.TickClient}, which a chained tickerplant uses upstream) and a feed
 * ({@link io.jtick.core.client.FeedPublisher}, which follows the cluster's leader).
 */
package io.jtick.core.client;
