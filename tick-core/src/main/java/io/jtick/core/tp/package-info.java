/** The tickerplant ({@code tick.q} + {@code u.q}): journal each update, publish it once to every matching subscriber. */
package io.jtick.core.tp;
