package io.jtick.sql.pg;

import io.jtick.core.auth.AccessSettings;

/**
 * The PostgreSQL port's settings.
 *
 * @param host       address to bind (loopback: open without the token, as the REST guard is)
 * @param port       port (0: any free one)
 * @param access     the API token and guard of the service ({@code tick.api.*}); the token is the password
 * @param maxMessage largest message a client may send, bytes
 * @param workers    I/O threads (which also run statements with bounded answers), and as many threads that run the others
 *                   (each connection's statements in order on one of them at a time)
 */
public record PgSettings(String host, int port, AccessSettings access, int maxMessage, int workers) {
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
        return this;
    }
}
