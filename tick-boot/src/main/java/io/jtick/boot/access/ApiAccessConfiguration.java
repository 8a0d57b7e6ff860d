package io.jtick.boot.access;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.auth.ClientSubjects;
import io.jtick.core.tls.TlsSettings;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The access check of a service's REST API, imported by every service next to
 * {@link io.jtick.boot.ApiErrors}: {@code tick.api.*} → {@link AccessSettings} (also what a core
 * listener such as the tickerplant's port builds its own {@link AccessCheck} from) → the check of the
 * HTTP server's address ({@code server.address}; unset = all interfaces) → {@link ApiTokenFilter} on {@code /api/*}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiAccessProperties.class)
public class ApiAccessConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(ApiAccessConfiguration.class);

    @Bean
    AccessSettings apiAccessSettings(final ApiAccessProperties properties) {
        return properties.toSettings();
    }

    @Bean
    AccessCheck apiAccessCheck(final AccessSettings settings, final Environment environment) {
        final AccessCheck check = AccessCheck.forListener(settings, boundAddress(environment.getProperty("server.address")));
        LOG.info("REST API access: {}", check.describe());
        return check;
    }

    @Bean
    FilterRegistrationBean<ApiTokenFilter> apiTokenFilter(final AccessCheck check, final ObjectProvider<TlsSettings> tls,
                                                          final ObjectProvider<MeterRegistry> registry) {
        final ClientSubjects subjects = tls.getIfAvailable(() -> TlsSettings.OFF).subjects();
        if (!subjects.isEmpty()) {
            LOG.info("REST API access: client certificates stand for the token [subjects={}]", subjects.describe());
        }
        final FilterRegistrationBean<ApiTokenFilter> r = new FilterRegistrationBean<>(new ApiTokenFilter(check, subjects,
            registry.getIfAvailable()));
        r.addUrlPatterns("/api/*");
        r.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return r;
    }

    /** The HTTP server's bind address; null when unset or blank (all interfaces). A name that does not resolve stops start-up. */
    static InetAddress boundAddress(final String address) {
        if (address == null || address.isBlank()) {
            return null;
        }
        try {
            return InetAddress.getByName(address.trim());
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve the bind address [key=server.address, value=" + address + "]", e);
        }
    }
}
