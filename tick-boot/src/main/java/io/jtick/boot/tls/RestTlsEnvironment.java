package io.jtick.boot.tls;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one place {@code tick.tls.*} becomes the REST port's TLS: Spring Boot's SSL bundle {@code tick}
 * ({@code spring.ssl.bundle.pem.tick.*} from the PEM files, or {@code spring.ssl.bundle.jks.tick.*} from the key
 * stores; REST then checks client certificates against {@code trust-store}, not a PEM {@code trust}) and
 * {@code server.ssl.bundle=tick} with {@code server.ssl.client-auth}. Added last, so a
 * {@code server.ssl.*} or {@code spring.ssl.*} set by hand wins. With {@code optional} the REST port serves HTTPS only
 * (Tomcat cannot take both on one port); with {@code off} nothing is added.
 */
public final class RestTlsEnvironment implements EnvironmentPostProcessor, Ordered {
    /** The bundle's name. */
    public static final String BUNDLE = "tick";

    @Override
    public void postProcessEnvironment(final ConfigurableEnvironment env, final SpringApplication application) {
        final String mode = env.getProperty("tick.tls.mode", "off").trim().toLowerCase(Locale.ROOT);
        if ("off".equals(mode)) {
            return;
        }
        final Map<String, Object> p = new LinkedHashMap<>();
        final String keyStore = env.getProperty("tick.tls.key-store");
        final String trustStore = env.getProperty("tick.tls.trust-store");
        if (keyStore != null && !keyStore.isBlank()) {
            final String b = "spring.ssl.bundle.jks." + BUNDLE + ".";
            p.put(b + "keystore.location", location(keyStore));
            p.put(b + "keystore.type", type(keyStore));
            put(p, b + "keystore.password", env.getProperty("tick.tls.key-store-password"));
            if (trustStore != null && !trustStore.isBlank()) {
                p.put(b + "truststore.location", location(trustStore));
                p.put(b + "truststore.type", type(trustStore));
                put(p, b + "truststore.password", env.getProperty("tick.tls.trust-store-password"));
            }
            p.put(b + "options.enabled-protocols", "TLSv1.3,TLSv1.2");
        } else {
            final String b = "spring.ssl.bundle.pem." + BUNDLE + ".";
            put(p, b + "keystore.certificate", location(env.getProperty("tick.tls.certificate")));
            put(p, b + "keystore.private-key", location(env.getProperty("tick.tls.private-key")));
            put(p, b + "keystore.private-key-password", env.getProperty("tick.tls.private-key-password"));
            put(p, b + "truststore.certificate", location(env.getProperty("tick.tls.trust")));
            p.put(b + "options.enabled-protocols", "TLSv1.3,TLSv1.2");
        }
        p.put("server.ssl.bundle", BUNDLE);
        p.put("server.ssl.client-auth", env.getProperty("tick.tls.client-auth", "none").trim().toLowerCase(Locale.ROOT));
        env.getPropertySources().addLast(new MapPropertySource("tick.tls (REST)", p));
    }

    @Override
    public int getOrder() {
        // after the configuration files are read (ConfigDataEnvironmentPostProcessor)
        return Ordered.LOWEST_PRECEDENCE;
    }

    private static void put(final Map<String, Object> p, final String key, final String value) {
        if (value != null && !value.isBlank()) {
            p.put(key, value.trim());
        }
    }

    private static String location(final String path) {
        return path == null || path.isBlank() ? null : "file:" + Path.of(path.trim()).toAbsolutePath();
    }

    private static String type(final String path) {
        return path.trim().toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
    }
}
