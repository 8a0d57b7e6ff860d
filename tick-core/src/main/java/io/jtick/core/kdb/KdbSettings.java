package io.jtick.core.kdb;

import io.jtick.core.auth.AccessSettings;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the tickerplant listens for kdb+ clients and whom it lets in ({@code tick.tp.kdb-port},
 * {@code tick.tp.kdb.users}, {@code tick.api.*}).
 *
 * @param port      the kdb+ port (0: any free port; negative: no kdb+ port)
 * @param usersFile q's {@code -u} file: {@code user:password} lines, the password plain or as its MD5
 *                  in hex; null = none
 * @param access    the API token settings every jtick listener shares: without a users file, a
 *                  listener off loopback lets in only the token as password
 */
public record KdbSettings(int port, Path usersFile, AccessSettings access) {
    /** No kdb+ port. */
    public static final KdbSettings OFF = new KdbSettings(-1, null, AccessSettings.DEFAULT);

    /** A kdb+ port on {@code port} with the default access (any user on loopback). */
    public static KdbSettings onPort(final int port) {
        return new KdbSettings(port, null, AccessSettings.DEFAULT);
    }

    public boolean enabled() {
        return port >= 0;
    }

    public KdbSettings validate() {
        Objects.requireNonNull(access, "access").validate();
        if (port > 65535) {
            throw new IllegalArgumentException("kdb+ port out of range [port=" + port + "]");
        }
        return this;
    }
}
