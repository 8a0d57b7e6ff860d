package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbSettings;

/**
 * The kdb+ query port's settings.
 *
 * @param host        address to bind (loopback: any user may log in without a users file, as on the TP's kdb+ port)
 * @param kdb         port, q's {@code -u} users file and the API token settings (tick-core's, shared with the TP's kdb+ port)
 * @param maxMessage  largest message a client may send, bytes (compressed or expanded); over it: {@code 'limit} and closed
 * @param workers     I/O threads (which also run queries with bounded answers), and as many threads that run the others
 *                    (each connection's in order on one of them at a time)
 * @param partitioned the source is date-partitioned (the HDB, the gateway): {@code date} is a column of its tables
 */
public record KdbQuerySettings(String host, KdbSettings kdb, int maxMessage, int workers, boolean partitioned) {
    public KdbQuerySettings validate() {
        kdb.validate();
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
