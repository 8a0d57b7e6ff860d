package io.jtick.boot.tls;

import io.jtick.core.tls.TlsSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.nio.file.Path;

/**
 * {@code tick.tls.*}: the one TLS setting of a service (docs/configuration.md), for its REST port (through the SSL
 * bundle {@link RestTlsEnvironment} maps it to), each of its Netty ports and its clients.
 *
 * @param mode               {@code off}, {@code optional} (TLS or plaintext on the Netty ports; REST serves HTTPS only),
 *                           {@code required}
 * @param clientAuth         {@code none}, {@code want}, {@code need}
 * @param certificate        PEM certificate chain
 * @param privateKey         PEM PKCS#8 key
 * @param privateKeyPassword the key's password, when encrypted
 * @param keyStore           PKCS#12 or JKS key store instead of the PEM files
 * @param keyStorePassword   its password
 * @param trust              PEM CA certificates trusted (servers this service calls, client certificates it is sent)
 * @param trustStore         a trust store instead
 * @param trustStorePassword its password
 * @param provider           {@code auto}, {@code jdk}, {@code openssl}
 * @param clientSubjects     file of client certificate subjects that stand for the API token ({@code <subject> -> read|write}
 *                           lines; docs/operations.md "Access: client certificates instead of the token")
 */
@ConfigurationProperties("tick.tls")
public record TlsProperties(@DefaultValue("off") String mode, @DefaultValue("none") String clientAuth, Path certificate,
                            Path privateKey, String privateKeyPassword, Path keyStore, String keyStorePassword, Path trust,
                            Path trustStore, String trustStorePassword, @DefaultValue("auto") String provider,
                            Path clientSubjects) {

    /** The core settings; a bad value stops start-up naming the key. */
    public TlsSettings toSettings() {
        final TlsSettings.Mode m = parse(() -> TlsSettings.Mode.parse(mode), "mode");
        final TlsSettings.ClientAuth c = parse(() -> TlsSettings.ClientAuth.parse(clientAuth), "client-auth");
        final TlsSettings.Provider p = parse(() -> TlsSettings.Provider.parse(provider), "provider");
        try {
            return new TlsSettings(m, c, certificate, privateKey, blank(privateKeyPassword), keyStore, blank(keyStorePassword), trust,
                trustStore, blank(trustStorePassword), p, clientSubjects).validate();
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " [key=tick.tls]", e);
        }
    }

    private static <T> T parse(final java.util.function.Supplier<T> f, final String key) {
        try {
            return f.get();
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " [key=tick.tls." + key + "]", e);
        }
    }

    private static String blank(final String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
