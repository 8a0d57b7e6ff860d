package io.jtick.feedsim;

import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.feed.FeedCounters;
import io.jtick.core.metrics.TickMetrics;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;

import java.nio.file.Path;

/**
 * Properties → feed service and profiling control plane (runs stored under {@code runs-dir}); the
 * feed totals ({@code tick.feed.rows/updates/bytes}) exported to Micrometer. Who may call the API is
 * tick-boot's {@link io.jtick.boot.access.ApiAccessConfiguration}, as for every service.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FeedProperties.class)
class FeedSimConfiguration {
    /**
     * Binds {@code tick.feed.data-dir} as a plain file-system path: Spring's default String to Path
     * conversion goes through the servlet resource loader and rejects a relative {@code ../shared/data}.
     */
    @Bean
    @ConfigurationPropertiesBinding
    static Converter<String, Path> pathConverter() {
        return new Converter<String, Path>() {
            @Override
            public Path convert(final String source) {
                return Path.of(source);
            }
        };
    }

    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    @Bean
    FeedCounters feedCounters(final TickMetrics metrics) {
        return FeedCounters.register(metrics);
    }

    /** Takes the counters so they exist before the binder runs. */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final FeedCounters counters) {
        return new TickMetricsBinder(metrics);
    }

    @Bean
    FeedService feedService(final FeedProperties properties, final FeedCounters counters) {
        return new FeedService(properties, counters);
    }

    @Bean
    RunStore runStore(final FeedProperties properties) {
        return new RunStore(properties.runsDir());
    }

    @Bean(destroyMethod = "close")
    RunService runService(final FeedProperties properties, final FeedService feeds, final RunStore store) {
        return new RunService(properties, feeds, store);
    }
}
