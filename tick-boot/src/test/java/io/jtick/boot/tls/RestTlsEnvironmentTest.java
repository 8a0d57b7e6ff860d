package io.jtick.boot.tls;

import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RestTlsEnvironmentTest {
    private static StandardEnvironment env(final Map<String, Object> tick) {
        final StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", tick));
        new RestTlsEnvironment().postProcessEnvironment(env, null);
        return env;
    }

    @Test
    void shouldAddNothingWhenOff() {
        final StandardEnvironment env = env(Map.of("tick.tls.certificate", "/c.pem"));
        assertThat(env.getProperty("server.ssl.bundle")).isNull();
        assertThat(env.getPropertySources().contains("tick.tls (REST)")).isFalse();
    }

    @Test
    void shouldMapPemFilesToTheTickBundle() {
        final StandardEnvironment env = env(Map.of("tick.tls.mode", "required", "tick.tls.client-auth", "WANT",
            "tick.tls.certificate", "/etc/tls/tls.crt", "tick.tls.private-key", "/etc/tls/tls.key", "tick.tls.trust", "/etc/tls/ca.crt"));
        assertThat(env.getProperty("server.ssl.bundle")).isEqualTo("tick");
        assertThat(env.getProperty("server.ssl.client-auth")).isEqualTo("want");
        assertThat(env.getProperty("spring.ssl.bundle.pem.tick.keystore.certificate")).isEqualTo("file:/etc/tls/tls.crt");
        assertThat(env.getProperty("spring.ssl.bundle.pem.tick.keystore.private-key")).isEqualTo("file:/etc/tls/tls.key");
        assertThat(env.getProperty("spring.ssl.bundle.pem.tick.truststore.certificate")).isEqualTo("file:/etc/tls/ca.crt");
        assertThat(env.getProperty("spring.ssl.bundle.pem.tick.options.enabled-protocols")).isEqualTo("TLSv1.3,TLSv1.2");
    }

    @Test
    void shouldMapKeyStoresToTheTickBundleAndLetHandSetKeysWin() {
        final StandardEnvironment env = env(Map.of("tick.tls.mode", "optional", "tick.tls.key-store", "var/tls/service.p12",
            "tick.tls.key-store-password", "changeit", "tick.tls.trust-store", "/t/trust.jks", "server.ssl.client-auth", "need"));
        assertThat(env.getProperty("spring.ssl.bundle.jks.tick.keystore.location"))
            .isEqualTo("file:" + Path.of("var/tls/service.p12").toAbsolutePath());
        assertThat(env.getProperty("spring.ssl.bundle.jks.tick.keystore.type")).isEqualTo("PKCS12");
        assertThat(env.getProperty("spring.ssl.bundle.jks.tick.keystore.password")).isEqualTo("changeit");
        assertThat(env.getProperty("spring.ssl.bundle.jks.tick.truststore.type")).isEqualTo("JKS");
        assertThat(env.getProperty("server.ssl.client-auth")).as("set by hand").isEqualTo("need");
    }
}
