package io.jtick.bench;

import io.jtick.core.tls.TlsSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The certificates the TLS benchmarks run with (a test CA and a server certificate for localhost and 127.0.0.1, copied
 * from tick-core's test certificates: src/test/resources/tls/make-certs.sh), written to a temporary directory once.
 */
public final class BenchTls {
    private static Path dir;

    private BenchTls() {
    }

    /** A listener's settings: TLS required, no client certificates, {@code provider}. */
    public static TlsSettings server(final TlsSettings.Provider provider) {
        final Path d = dir();
        return new TlsSettings(TlsSettings.Mode.REQUIRED, TlsSettings.ClientAuth.NONE, d.resolve("server.pem"), d.resolve("server.key"),
            null, null, null, d.resolve("ca.pem"), null, null, provider);
    }

    /** A client's settings: the CA trusted, no certificate of its own, {@code provider}. */
    public static TlsSettings client(final TlsSettings.Provider provider) {
        return new TlsSettings(TlsSettings.Mode.REQUIRED, TlsSettings.ClientAuth.NONE, null, null, null, null, null,
            dir().resolve("ca.pem"), null, null, provider);
    }

    private static synchronized Path dir() {
        if (dir == null) {
            try {
                final Path d = Files.createTempDirectory("jtick-bench-tls");
                d.toFile().deleteOnExit();
                for (final String f : new String[] {"ca.pem", "server.pem", "server.key"}) {
                    try (InputStream in = BenchTls.class.getResourceAsStream("/tls/" + f)) {
                        Files.copy(in, d.resolve(f));
                    }
                    d.resolve(f).toFile().deleteOnExit();
                }
                dir = d;
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return dir;
    }
}
