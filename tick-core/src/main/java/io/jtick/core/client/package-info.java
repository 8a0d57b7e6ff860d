/**
 * Netty clients of the tickerplant: a subscriber
 * ({@link io.jtick.core.client.TickClient}) and a feed ({@link io.jtick.core.client.FeedPublisher}). */
package io.jtick.core.client;
