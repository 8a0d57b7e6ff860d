package io.jtick.sql.pg;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.tls.TlsSettings;

/**
 * The PostgreSQL port's settings.
 *
 * @param host       address to bind (loopback: open without the token, as the REST guard is)
 * @param port       port (0: any free one)
 * @param access     the API token and guard of the service ({@code tick.api.*}); the token is the password
 * @param maxMessage largest message a client may send, bytes
 * @param workers    I/O threads (which also run statements with bounded answers), and as many threads that run the others
 *                   (each connection's statements in order on one of them at a time)
 * @param tls        the service's TLS ({@code tick.tls.*}): an SSLRequest is answered {@code S} and the handshake follows;
 *                   {@code required} refuses a start-up without it ({@code 28000})
 */
public record PgSettings(String host, int port, AccessSettings access, int maxMessage, int workers, TlsSettings tls) {
    /** Without TLS. */
    public PgSettings(final String host, final int port, final AccessSettings access, final int maxMessage, final int workers) {
        this(host, port, access, maxMessage, workers, TlsSettings.OFF);
    }

    public PgSettings validate() {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("pg-port out of range [port=" + port + "]");
        }
        if (maxMessage < 1024) {
            throw new IllegalArgumentException("pg max message under 1 KiB [maxMessage=" + maxMessage + "]");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("pg workers must be positive [workers=" + workers + "]");
        }
        access.validate();
        tls.validate();
        return this;
    }
}
