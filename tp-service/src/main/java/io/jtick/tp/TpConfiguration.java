package io.jtick.tp;

import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.time.NanoClock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;

/** Properties record → core settings → a started tickerplant (Aeron's MediaDriver.main shape). */
@Configuration(proxyBeanMethods = false)
class TpConfiguration {
    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    /** Started here, not in a lifecycle callback, so its meters exist before Micrometer binds them. */
    @Bean(destroyMethod = "close")
    TickerplantServer tickerplantServer(final TpProperties props, final TickMetrics metrics, final AccessSettings access)
        throws IOException {
        return new TickerplantServer(props.toSettings(), props.schemas(), NanoClock.SYSTEM, metrics).access(access)
            .kdb(props.kdbSettings(access)).start();
    }

    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final TickerplantServer server) {
        return new TickMetricsBinder(metrics);
    }
}
