package io.jtick.boot.access;

import io.jtick.boot.PropertyChecks;
import io.jtick.core.auth.AccessSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tick.api.*}: the one access setting every service shares (docs/configuration.md).
 *
 * @param token        the token a caller sends as {@code Authorization: Bearer <token>} or {@code X-Api-Token}; empty = none
 * @param guard        {@code auto}: ask for it once the service listens off loopback ({@code server.address} not 127.0.0.0/8
 *                     or ::1, the default of the images and the chart: 0.0.0.0); {@code always}: on loopback too (behind a
 *                     local reverse proxy)
 * @param protectReads reads (GET, and the query POSTs) need the token too; by default only calls that change state do
 */
@ConfigurationProperties("tick.api")
public record ApiAccessProperties(String token, @DefaultValue("auto") String guard, @DefaultValue("false") boolean protectReads) {
    /** A bad value stops start-up naming its key. */
    public ApiAccessProperties {
        PropertyChecks.text("tick.api.guard", guard);
    }


    /** The core settings; a bad value stops start-up naming the key. */
    public AccessSettings toSettings() {
        final AccessSettings.Guard g;
        try {
            g = AccessSettings.Guard.parse(guard);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " [key=tick.api.guard]", e);
        }
        try {
            return new AccessSettings(token == null || token.isBlank() ? null : token.trim(), g, protectReads).validate();
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " [key=tick.api.token]", e);
        }
    }
}
