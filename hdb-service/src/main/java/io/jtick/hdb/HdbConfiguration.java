package io.jtick.hdb;

import io.jtick.boot.KdbPort;
import io.jtick.boot.PgPort;
import io.jtick.boot.QueryEndpoint;
import io.jtick.boot.QueryProperties;
import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.auth.AccessSettings;
import io.jtick.boot.tls.TlsConfiguration;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.gateway.Gateway;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.table.QuerySource;
import io.jtick.core.warmup.QueryWarmUp;
import io.jtick.core.gateway.RemoteRdbSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Properties → the loaded HDB (lifecycle), the query engines (HDB, gateway), the study runner, and
 * the core metrics exported to Micrometer.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({HdbProperties.class, QueryProperties.class})
class HdbConfiguration {
    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    @Bean
    HdbLifecycle hdbLifecycle(final HdbProperties properties, final TickMetrics metrics) {
        return new HdbLifecycle(properties, metrics);
    }

    @Bean
    ReplayLifecycle replayLifecycle(final HdbProperties properties, final HdbLifecycle store, final TickMetrics metrics,
                                    final AccessSettings access, final TlsSettings tls) {
        return new ReplayLifecycle(properties, store, metrics, access, tls);
    }

    @Bean
    ImportRunner importRunner(final HdbProperties properties, final HdbLifecycle store, final TickMetrics metrics) {
        return new ImportRunner(properties, store, metrics);
    }

    @Bean
    CompressionStudyRunner compressionStudyRunner(final HdbLifecycle store, final HdbProperties properties) {
        return new CompressionStudyRunner(store, properties);
    }

    /** The query engine's start-up warm-up over HDB partitions in {@code tick.query.warm-up-encodings}, in the background. */
    @Bean
    QueryWarmUp queryWarmUp(final TickMetrics metrics, final QueryProperties query) {
        return query.startWarmUp(QueryWarmUp.Kind.HDB, metrics);
    }

    /**
     * The query engine over the partitions and the gateway over partitions plus the RDB, each with
     * {@code tick.query.*} limits;
     * the gateway sends the API token ({@code tick.api.token}) for an RDB that protects reads.
     */
    @Bean
    HdbQueries hdbQueries(final HdbLifecycle store, final HdbProperties properties, final QueryProperties query,
                          final TickMetrics metrics, final AccessSettings access, final TlsSettings tls) {
        final PartitionSource hdb = new PartitionSource(store.hdb());
        final HdbProperties.Gateway g = properties.gateway();
        return new HdbQueries(new QueryEndpoint(new QueryEngine(metrics, query.limits(), "hdb")), hdb,
            new QueryEndpoint(new QueryEngine(metrics, query.limits(), "gateway")),
            g.enabled() ? new Gateway(hdb, new RemoteRdbSource(g.rdbUrl(), g.timeout(), access.token(),
                tls.enabled() ? TlsConfiguration.sslContext(tls) : null)) : null);
    }

    /**
     * What {@code POST /api/query} and {@code POST /api/gateway/query} run on.
     *
     * @param gatewaySource null when no RDB is configured
     */
    record HdbQueries(QueryEndpoint hdbEndpoint, QuerySource hdbSource, QueryEndpoint gatewayEndpoint, QuerySource gatewaySource) {
    }

    /**
     * Tomcat answers {@code Expect: 100-continue} only once the body is read (its default is at
     * once): a partition upload the token check refuses is answered before the day is sent.
     */
    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> continueOnRead() {
        return factory -> factory.addConnectorCustomizers(connector -> connector.setProperty("continueResponseTiming", "onRead"));
    }

    /**
     * The PostgreSQL port ({@code tick.hdb.pg-port}): through the gateway (partitions and today's RDB)
     * when {@code tick.hdb.gateway.rdb-url} is set, else over the partitions.
     */
    @Bean(destroyMethod = "close")
    PgPort pgPort(final HdbProperties properties, final AccessSettings access, final TlsSettings tls, final HdbQueries queries,
                  final TickMetrics metrics) {
        final boolean gateway = queries.gatewaySource() != null;
        final QuerySource source = gateway ? queries.gatewaySource() : queries.hdbSource();
        return new PgPort(gateway ? "gateway" : "hdb", properties.pgHost(), properties.pgPort(), access, tls,
            gateway ? queries.gatewayEndpoint() : queries.hdbEndpoint(), source,
            () -> SchemaRegistry.builtIn(0).tables().stream().filter(t -> source.schema(t.name()) != null)
                .map(t -> source.schema(t.name())).toList(), metrics);
    }

    /**
     * The kdb+ IPC port ({@code tick.hdb.kdb-port}) for q clients: over the partitions, as a kdb+ HDB process answers, or across
     * the partitions and today's RDB with {@code tick.hdb.kdb-gateway=true}, as a kdb+ gateway does (which needs
     * {@code tick.hdb.gateway.rdb-url}: start-up stops naming it otherwise).
     */
    @Bean(destroyMethod = "close")
    KdbPort kdbPort(final HdbProperties properties, final AccessSettings access, final TlsSettings tls, final HdbQueries queries,
                    final TickMetrics metrics) {
        if (properties.kdbGateway() && queries.gatewaySource() == null && properties.kdbPort() >= 0) {
            throw new IllegalArgumentException("tick.hdb.kdb-gateway=true needs the RDB's URL [key=tick.hdb.gateway.rdb-url]");
        }
        final boolean gateway = properties.kdbGateway();
        final QuerySource source = gateway ? queries.gatewaySource() : queries.hdbSource();
        return new KdbPort(gateway ? "gateway" : "hdb", properties.kdbHost(), properties.kdbPort(), properties.kdbUsers(), access, tls,
            gateway ? queries.gatewayEndpoint() : queries.hdbEndpoint(), source,
            () -> SchemaRegistry.builtIn(0).tables().stream().filter(t -> source.schema(t.name()) != null)
                .map(t -> source.schema(t.name())).toList(), true, metrics);
    }

    /** Takes the lifecycles, the import runner, the queries, the PostgreSQL and kdb+ ports: their meters exist before the binder runs. */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final HdbLifecycle store, final HdbQueries queries,
                                        final ReplayLifecycle replay, final ImportRunner imports, final PgPort pg, final KdbPort kdb) {
        return new TickMetricsBinder(metrics);
    }
}
