package io.jtick.core.auth;

import java.util.Locale;

/**
 * The access settings every jtick listener shares ({@code tick.api.*} in the services).
 *
 * @param token        the shared secret a caller presents; null or blank = none configured
 * @param guard        when a listener asks for the token: {@link Guard#AUTO} once it is bound off
 *                     loopback (any address but 127.0.0.0/8 and ::1, the wildcard included),
 *                     {@link Guard#ALWAYS} whatever it is bound to (behind a local reverse proxy)
 * @param protectReads reads need the token too (by default only calls that change state do)
 */
public record AccessSettings(String token, Guard guard, boolean protectReads) {
    /** No token, guard on once off loopback, reads open: the default. */
    public static final AccessSettings DEFAULT = new AccessSettings(null, Guard.AUTO, false);

    /** When a listener asks for the token. */
    public enum Guard {
        AUTO, ALWAYS;

        /** {@code auto} or {@code always}, any case. */
        public static Guard parse(final String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (final IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("unknown guard [guard=" + s + ", known=auto|always]", e);
            }
        }
    }

    /** True when a token is configured. */
    public boolean hasToken() {
        return token != null && !token.isBlank();
    }

    /** Checks the settings; a token with spaces or control characters cannot travel in a header and is refused. */
    public AccessSettings validate() {
        if (guard == null) {
            throw new IllegalArgumentException("guard is required [known=auto|always]");
        }
        if (hasToken()) {
            for (int i = 0; i < token.length(); i++) {
                final char c = token.charAt(i);
                if (c <= ' ' || c >= 127) {
                    throw new IllegalArgumentException("the API token must be printable ASCII without spaces [position=" + i + "]");
                }
            }
        }
        return this;
    }

    /** The settings without the token, for logs and status pages. */
    @Override
    public String toString() {
        return "AccessSettings[token=" + (hasToken() ? "(set)" : "(none)") + ", guard=" + guard + ", protectReads=" + protectReads + "]";
    }
}
