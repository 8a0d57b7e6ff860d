package io.jtick.core.testing;

import io.jtick.core.tls.TlsSettings;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The test certificates of {@code src/test/resources/tls} (made by its {@code make-certs.sh}): a CA, a server certificate
 * for localhost and 127.0.0.1, a client, expired ones, one for another host name, and a client of a CA nobody trusts.
 */
public final class TestTls {
    private TestTls() {
    }

    private static Path copies;

    /** A file of the test certificates' directory (copied out once when the test classes are a jar). */
    public static synchronized Path file(final String name) {
        final URL url = TestTls.class.getResource("/tls/" + name);
        if (url == null) {
            throw new IllegalArgumentException("no test certificate file [name=" + name + "]");
        }
        try {
            if ("file".equals(url.getProtocol())) {
                return Path.of(url.toURI());
            }
            if (copies == null) {
                copies = Files.createTempDirectory("jtick-test-tls");
                copies.toFile().deleteOnExit();
            }
            final Path copy = copies.resolve(name);
            if (!Files.exists(copy)) {
                try (InputStream in = url.openStream()) {
                    Files.copy(in, copy);
                }
                copy.toFile().deleteOnExit();
            }
            return copy;
        } catch (final URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot read the test certificate [name=" + name + "]", e);
        }
    }

    /** A listener (or client) presenting {@code name}.pem/.key and trusting the test CA. */
    public static TlsSettings pem(final String name, final TlsSettings.Mode mode, final TlsSettings.ClientAuth clientAuth) {
        return new TlsSettings(mode, clientAuth, file(name + ".pem"), file(name + ".key"), null, null, null, file("ca.pem"), null, null,
            TlsSettings.Provider.JDK);
    }

    /** The same certificate from its PKCS#12 key store. */
    public static TlsSettings keyStore(final String name, final TlsSettings.Mode mode, final TlsSettings.ClientAuth clientAuth) {
        return new TlsSettings(mode, clientAuth, null, null, null, file(name + ".p12"), "changeit", file("ca.pem"), null, null,
            TlsSettings.Provider.JDK);
    }

    /** A client with no certificate of its own, trusting the test CA. */
    public static TlsSettings trustOnly() {
        return new TlsSettings(TlsSettings.Mode.REQUIRED, TlsSettings.ClientAuth.NONE, null, null, null, null, null, file("ca.pem"), null,
            null, TlsSettings.Provider.JDK);
    }
}
