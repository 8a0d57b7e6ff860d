package io.jtick.feedsim.console;

import io.jtick.core.metrics.TickMetrics;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code tick.console.*} → the pass-through the console page reads the other services through. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsoleProperties.class)
class ConsoleConfiguration {
    @Bean
    ConsoleForwarder consoleForwarder(final ConsoleProperties properties, final TickMetrics metrics,
                                      final io.jtick.core.tls.TlsSettings tls) {
        return new ConsoleForwarder(properties, metrics, tls.enabled() ? io.jtick.boot.tls.TlsConfiguration.sslContext(tls) : null);
    }
}
