package io.jtick.feedsim;

import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.feed.FeedCounters;
import io.jtick.core.feed.FeedRequest;
import io.jtick.core.feed.FeedSupervisor;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.feedsim.console.ConsoleForwarder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.converter.Converter;

import java.nio.file.Path;

/**
 * Properties → the core feed supervisor (started at ready when {@code autostart}) and profiling
 * control plane (runs stored under {@code runs-dir}); the feed totals
 * ({@code tick.feed.rows/updates/bytes}) exported to Micrometer. Who may call the API is
 * tick-boot's {@link io.jtick.boot.access.ApiAccessConfiguration}, as for every service.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FeedProperties.class)
class FeedSimConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(FeedSimConfiguration.class);

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

    /**
     * Takes the counters, the supervisor and the console's pass-through (when the console is configured: slice tests leave it
     * out) so their meters exist before the binder runs.
     */
    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final FeedCounters counters, final FeedSupervisor feeds,
                                        final ObjectProvider<ConsoleForwarder> console) {
        console.getIfAvailable();
        return new TickMetricsBinder(metrics);
    }

    /**
     * The one feed; {@code tick.feed.reconnects} counts how often its connection to the tickerplant was made again,
     * {@code tick.feed.tp.changes} how often it went on to another of its tickerplants (a TP cluster's leader moved).
     */
    @Bean(destroyMethod = "close")
    FeedSupervisor feedSupervisor(final FeedProperties properties, final FeedCounters counters, final TickMetrics metrics,
                                  final AccessSettings access, final TlsClient tls) {
        final FeedSupervisor feeds = new FeedSupervisor(properties.feedSettings(access.token()), counters).tls(tls);
        metrics.gauge("tick.feed.reconnects", feeds::reconnectsTotal);
        metrics.gauge("tick.feed.tp.changes", feeds::tpChangesTotal);
        return feeds;
    }

    /** {@code tick.feed.autostart}: the default synthetic feed once the app is ready (retrying the TP connection). */
    @Bean
    ApplicationListener<ApplicationReadyEvent> feedAutostart(final FeedProperties properties, final FeedSupervisor feeds) {
        return event -> {
            if (properties.autostart()) {
                LOG.info("autostart: synthetic feed [table={}, r={}, u={}, t={}ms, syms={}, tp={}]", properties.table(),
                    properties.r(), properties.u(), properties.t(), properties.syms(),
                    TickerplantAddresses.format(properties.tickerplants()));
                feeds.start(FeedRequest.defaults());
            }
        };
    }

    @Bean
    RunStore runStore(final FeedProperties properties) {
        return new RunStore(properties.runsDir());
    }

    @Bean(destroyMethod = "close")
    RunService runService(final FeedProperties properties, final FeedSupervisor feeds, final RunStore store) {
        return new RunService(properties, feeds, store);
    }
}
