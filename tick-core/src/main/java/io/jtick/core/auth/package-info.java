/**
 * Who may call a jtick endpoint: one shared token, asked for by any listener bound off loopback for
 * the calls that change state (and, when configured, for reads). Plain Java, so the services' REST
 * APIs and the tickerplant's own port check it the same way.
 */
package io.jtick.core.auth;
