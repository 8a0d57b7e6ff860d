package io.jtick.hdb;

import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.metrics.TickMetrics;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Properties → the loaded HDB (lifecycle), the study runner, and the core metrics exported to Micrometer. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(HdbProperties.class)
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
    CompressionStudyRunner compressionStudyRunner(final HdbLifecycle store, final HdbProperties properties) {
        return new CompressionStudyRunner(store, properties);
    }

    /** Takes the lifecycle so the HDB's meters exist before the binder runs. */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final HdbLifecycle store) {
        return new TickMetricsBinder(metrics);
    }
}
