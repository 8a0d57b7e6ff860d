package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.tls.TlsSettings;

/**
 * The kdb+ query port's settings.
 *
 * @param host        address to bind (loopback: any user may log in without a users file, as on the TP's kdb+ port)
 * @param kdb         port, q's {@code -u} users file and the API token settings (tick-core's, shared with the TP's kdb+ port)
 * @param maxMessage  largest message a client may send, bytes (compressed or expanded); over it: {@code 'limit} and closed
 * @param workers     I/O threads (which also run queries with bounded answers), and as many threads that run the others
 *                    (each connection's in order on one of them at a time)
 * @param partitioned the source is date-partitioned (the HDB, the gateway): {@code date} is a column of its tables
 * @param tls         the service's TLS ({@code tick.tls.*}): {@code :tcps://} clients, TLS from the first byte as kdb+ -E;
 *                    {@code required} closes a plaintext login without an answer (kdb+'s way)
 */
public record KdbQuerySettings(String host, KdbSettings kdb, int maxMessage, int workers, boolean partitioned, TlsSettings tls) {
    /** Without TLS. */
    public KdbQuerySettings(final String host, final KdbSettings kdb, final int maxMessage, final int workers, final boolean partitioned) {
        this(host, kdb, maxMessage, workers, partitioned, TlsSettings.OFF);
    }

    public KdbQuerySettings validate() {
        kdb.validate();
        tls.validate();
        if (kdb.port() < 0) {
            throw new IllegalArgumentException("kdb+ port off [port=" + kdb.port() + "]");
        }
        if (maxMessage < 1024) {
            throw new IllegalArgumentException("kdb+ max message under 1 KiB [maxMessage=" + maxMessage + "]");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("kdb+ workers must be positive [workers=" + workers + "]");
        }
        return this;
    }
}
