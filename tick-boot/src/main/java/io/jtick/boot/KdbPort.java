package io.jtick.boot;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.tls.TlsSettings;
import io.jtick.sql.kdb.KdbQueryServer;
import io.jtick.sql.kdb.KdbQuerySettings;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * A service's kdb+ IPC port ({@code tick.rdb.kdb-port}, {@code tick.hdb.kdb-port}; docs/kdb-ipc.md
 * "q on the RDB and HDB"): a {@link KdbQueryServer} over the service's query source, through the same
 * engine as its {@code POST /api/query}, with the TP kdb+ port's logins (q's {@code -u} file, or the
 * API token off loopback). A port below 0 turns it off.
 */
public final class KdbPort implements AutoCloseable {
    private final KdbQueryServer server;

    /**
     * @param users       q's {@code -u} file ({@code user:password} lines), blank = none
     * @param partitioned the source is date-partitioned (HDB, gateway): {@code date} is a column
     * @param tls         the service's {@code tick.tls.*}: {@code :tcps://} clients
     */
    public KdbPort(final String service, final String host, final int port, final String users, final AccessSettings access,
                   final TlsSettings tls, final QueryEndpoint endpoint, final QuerySource source, final Supplier<List<TableSchema>> tables,
                   final boolean partitioned, final TickMetrics metrics) {
        final Path usersFile = users == null || users.isBlank() ? null : Path.of(users.trim());
        this.server = port < 0 ? null : new KdbQueryServer(new KdbQuerySettings(host, new KdbSettings(port, usersFile, access), 16 << 20,
            Math.max(2, Runtime.getRuntime().availableProcessors()), partitioned, tls), endpoint.sql(), source, tables, metrics, service);
    }

    /** The bound port, or -1 when off. */
    public int port() {
        return server == null ? -1 : server.port();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
