package io.jtick.boot.tls;

import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsContexts;
import io.jtick.core.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.net.ssl.SSLContext;

/**
 * The service's TLS, imported by every service next to its access check: {@code tick.tls.*} → {@link TlsSettings}
 * (its Netty ports), {@link TlsClient} (its Netty clients) and {@link #http} (its HTTP clients). The REST port's
 * TLS is the same files through {@link RestTlsEnvironment}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(TlsProperties.class)
public class TlsConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(TlsConfiguration.class);

    @Bean
    TlsSettings tlsSettings(final TlsProperties properties) {
        final TlsSettings s = properties.toSettings();
        LOG.info("TLS: {}", s);
        return s;
    }

    @Bean
    TlsClient tlsClient(final TlsSettings settings) {
        return TlsClient.of(settings);
    }

    /** The JDK context of {@code settings} (for {@code HttpsURLConnection}). */
    public static SSLContext sslContext(final TlsSettings settings) {
        return TlsContexts.jdk(settings);
    }
}
