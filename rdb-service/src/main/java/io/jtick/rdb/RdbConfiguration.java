package io.jtick.rdb;

import io.jtick.boot.KdbPort;
import io.jtick.boot.PgPort;
import io.jtick.boot.QueryEndpoint;
import io.jtick.boot.QueryProperties;
import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.auth.AccessSettings;
import io.jtick.boot.tls.TlsConfiguration;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.HdbWriteDown;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymIndexAgent;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.warmup.QueryWarmUp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

import java.net.URI;
import java.util.List;
import java.util.Set;

/** Properties → core RDB (with the end-of-day write-down when configured) → subscription lifecycle, and the core metrics. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({RdbProperties.class, QueryProperties.class})
class RdbConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(RdbConfiguration.class);

    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    /** The thread that sorts each chunk of the indexed tables into their sym index as soon as it is full ({@code rdb-sym-index}). */
    @Bean(destroyMethod = "close")
    SymIndexAgent symIndexAgent() {
        return new SymIndexAgent("rdb-sym-index");
    }

    /** End of day uses an {@link EndOfDayHandler} bean when there is one (HDB write-down), else drops the day. */
    @Bean
    RealtimeDatabase realtimeDatabase(final TickMetrics metrics, final RdbProperties properties,
                                      final ObjectProvider<EndOfDayHandler> endOfDay, final SymIndexAgent indexAgent) {
        final List<String> gaugeTables = properties.tables().isEmpty()
            ? SchemaRegistry.builtIn(0).tables().stream().map(TableSchema::name).toList()
            : properties.tables();
        return new RealtimeDatabase(metrics, endOfDay.getIfAvailable(() -> EndOfDayHandler.NONE), gaugeTables,
            RealtimeTable.DEFAULT_CAPACITY, Set.copyOf(properties.unindexedTables()),
            properties.chunkPoolSize() == null ? Long.MAX_VALUE : properties.chunkPoolSize().toBytes(), indexAgent);
    }

    /**
     * End-of-day write-down when {@code tick.rdb.hdb.root} is set: the day's tables become the
     * date's partition there, then the HDB at {@code tick.rdb.hdb.url} (if set) is told to reload,
     * or with {@code tick.rdb.hdb.transfer=upload} is sent the partition; the API token goes along.
     */
    @Bean
    @Conditional(WriteDownConfigured.class)
    HdbWriteDown hdbWriteDown(final RdbProperties properties, final TickMetrics metrics, final AccessSettings access,
                              final TlsSettings tls) {
        final javax.net.ssl.SSLContext ssl = tls.enabled() ? TlsConfiguration.sslContext(tls) : null;
        final RdbProperties.Hdb hdb = properties.hdb();
        final PartitionWriter writer = new PartitionWriter(hdb.rootPath(), hdb.policy(), hdb.blockBytesInt(),
            Math.min(4, Runtime.getRuntime().availableProcessors()), PartitionWriter.WriteHook.NONE, hdb.directIoMode());
        final URI url = hdb.baseUrl();
        final HdbWriteDown.Listener listener = url == null ? HdbWriteDown.Listener.NONE
            : hdb.upload() ? new HdbPartitionUploader(url, hdb.reloadTimeout(), access.token(), ssl)
            : new HdbReloadNotifier(url, hdb.reloadTimeout(), access.token(), ssl);
        LOG.info("end-of-day write-down [root={}, encoding={}, directIo={}, hdbUrl={}, transfer={}]", hdb.rootPath().toAbsolutePath(),
            hdb.encoding(), hdb.directIoMode(), url == null ? "(not told)" : url, hdb.transfer());
        return new HdbWriteDown(writer, listener, metrics);
    }

    /** {@code tick.rdb.hdb.root} is set and not blank. */
    static final class WriteDownConfigured implements Condition {
        @Override
        public boolean matches(final ConditionContext context, final AnnotatedTypeMetadata metadata) {
            return StringUtils.hasText(context.getEnvironment().getProperty("tick.rdb.hdb.root"));
        }
    }

    /** Presents the API token in its HELLO, for a tickerplant that asks for it. */
    @Bean
    RdbLifecycle rdbLifecycle(final RdbProperties properties, final RealtimeDatabase rdb, final AccessSettings access,
                              final TlsClient tls) {
        return new RdbLifecycle(properties, rdb, access.token(), tls);
    }

    /** Offers the HDB what end of day wrote and could not deliver, until it takes it (and, with upload, what a restart left). */
    @Bean
    @Conditional(WriteDownConfigured.class)
    UndeliveredPartitions undeliveredPartitions(final RdbProperties properties, final HdbWriteDown writeDown) {
        return new UndeliveredPartitions(properties.hdb(), writeDown);
    }

    /** The query engine's start-up warm-up over RDB tables, in the background ({@code tick.query.warm-up}). */
    @Bean
    QueryWarmUp queryWarmUp(final TickMetrics metrics, final QueryProperties properties) {
        return properties.startWarmUp(QueryWarmUp.Kind.RDB, metrics);
    }

    /** The query engine over today's tables, with {@code tick.query.*} limits. */
    @Bean
    QueryEndpoint queryEndpoint(final TickMetrics metrics, final QueryProperties properties) {
        return new QueryEndpoint(new QueryEngine(metrics, properties.limits(), "rdb"));
    }

    /** The PostgreSQL port over today's tables ({@code tick.rdb.pg-port}), through the query endpoint's engine. */
    @Bean(destroyMethod = "close")
    PgPort pgPort(final RdbProperties properties, final AccessSettings access, final TlsSettings tls, final QueryEndpoint query,
                  final RealtimeDatabase rdb, final TickMetrics metrics) {
        return new PgPort("rdb", properties.pgHost(), properties.pgPort(), access, tls, query, rdb,
            () -> rdb.tables().stream().map(TableSegment::schema).toList(), metrics);
    }

    /** The kdb+ IPC port over today's tables ({@code tick.rdb.kdb-port}): q clients' queries, through the query endpoint's engine. */
    @Bean(destroyMethod = "close")
    KdbPort kdbPort(final RdbProperties properties, final AccessSettings access, final TlsSettings tls, final QueryEndpoint query,
                    final RealtimeDatabase rdb, final TickMetrics metrics) {
        return new KdbPort("rdb", properties.kdbHost(), properties.kdbPort(), properties.kdbUsers(), access, tls, query, rdb,
            () -> rdb.tables().stream().map(TableSegment::schema).toList(), false, metrics);
    }

    /** Takes the database, the query endpoint and the PostgreSQL and kdb+ ports so their meters exist before the binder runs. */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final RealtimeDatabase rdb, final QueryEndpoint query,
                                        final PgPort pg, final KdbPort kdb) {
        return new TickMetricsBinder(metrics);
    }
}
