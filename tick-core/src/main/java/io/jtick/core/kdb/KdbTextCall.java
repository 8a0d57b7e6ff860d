package io.jtick.core.kdb;

import io.netty.buffer.ByteBuf;

/**
 * A q call sent as text, such as kdb-tick feed.q's {@code h"(.u.upd[`trade;(`IBM;187.25;100i))"}, turned into
 * the kdb+ object a client would have sent as a list: {@code (`.u.upd;`trade;(`IBM;187.25;100i))}. The
 * tickerplant's kdb+ port then handles that object exactly as the list form (same conversion, journal and
 * fan-out). tick-core evaluates no q: this hook is filled by the service with the q parser of the query
 * front end ({@code tick-sql}), so that there is one q parser; without one, text other than r.q's
 * subscription is answered {@code nyi}.
 */
@FunctionalInterface
public interface KdbTextCall {
    /**
     * Appends {@code text} as one kdb+ object, a general list {@code (`f; arg; ...)}, to {@code out}.
     *
     * @throws Refused with q's error text ({@code nyi [...]}, {@code type [...]}, {@code parse [...]}) when
     *                 {@code text} is not one call of a named function with literal arguments
     */
    void write(String text, ByteBuf out);

    /** The text is not a call this hook turns into a list; the message is the q error for the client. */
    final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Refused(final String message) {
            super(message, null, false, false);
        }
    }
}
