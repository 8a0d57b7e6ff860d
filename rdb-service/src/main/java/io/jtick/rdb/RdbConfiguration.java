package io.jtick.rdb;

import io.jtick.boot.QueryEndpoint;
import io.jtick.boot.QueryProperties;
import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;

/** Properties → core RDB → subscription lifecycle, and the core metrics exported to Micrometer. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({RdbProperties.class, QueryProperties.class})
class RdbConfiguration {
    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    /** End of day uses an {@link EndOfDayHandler} bean when there is one (HDB write-down), else drops the day. */
    @Bean
    RealtimeDatabase realtimeDatabase(final TickMetrics metrics, final RdbProperties properties,
                                      final ObjectProvider<EndOfDayHandler> endOfDay) {
        final List<String> gaugeTables = properties.tables().isEmpty()
            ? SchemaRegistry.builtIn(0).tables().stream().map(TableSchema::name).toList()
            : properties.tables();
        return new RealtimeDatabase(metrics, endOfDay.getIfAvailable(() -> EndOfDayHandler.NONE), gaugeTables,
            RealtimeTable.DEFAULT_CAPACITY);
    }

    @Bean
    RdbLifecycle rdbLifecycle(final RdbProperties properties, final RealtimeDatabase rdb) {
        return new RdbLifecycle(properties, rdb);
    }

    /** The query engine over today's tables, with {@code tick.query.*} limits. */
    @Bean
    QueryEndpoint queryEndpoint(final TickMetrics metrics, final QueryProperties properties) {
        return new QueryEndpoint(new QueryEngine(metrics, properties.limits()));
    }

    /** Takes the database and the query endpoint so their meters exist before the binder runs. */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final RealtimeDatabase rdb, final QueryEndpoint query) {
        return new TickMetricsBinder(metrics);
    }
}
