package io.jtick.boot;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.tls.TlsSettings;
import io.jtick.sql.pg.PgServer;
import io.jtick.sql.pg.PgSettings;

import java.util.List;
import java.util.function.Supplier;

/**
 * A service's PostgreSQL port ({@code tick.rdb.pg-port}, {@code tick.hdb.pg-port}; docs/query.md
 * "SQL"): a {@link PgServer} over the service's query source, through the same engine as its
 * {@code POST /api/query}, guarded by the service's API token. A port below 0 turns it off.
 */
public final class PgPort implements AutoCloseable {
    private final PgServer server;

    /** @param tls the service's {@code tick.tls.*}: SSLRequest answered {@code S}, and with {@code required} asked for */
    public PgPort(final String service, final String host, final int port, final AccessSettings access, final TlsSettings tls,
                  final QueryEndpoint endpoint, final QuerySource source, final Supplier<List<TableSchema>> tables,
                  final TickMetrics metrics) {
        this.server = port < 0 ? null : new PgServer(new PgSettings(host, port, access, 16 << 20,
            Math.max(2, Runtime.getRuntime().availableProcessors()), tls), endpoint.sql(), source, tables, metrics, service);
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
