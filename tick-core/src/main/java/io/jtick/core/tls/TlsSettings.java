package io.jtick.core.tls;

import io.jtick.core.auth.ClientSubjects;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The TLS settings of one service ({@code tick.tls.*}): the same certificate for its REST port and for
 * every Netty port it listens on, and the trust its clients verify servers (and its listeners verify
 * client certificates) with. Its clients (a subscription, a feed, a replay, HTTP calls to another
 * service) speak TLS whenever {@link #mode} is not {@link Mode#OFF}, presenting this certificate when
 * the server asks for one.
 *
 * @param mode               {@code off}: plaintext only; {@code optional}: TLS or plaintext on the same port (the
 *                           first bytes decide); {@code required}: plaintext is refused and counted
 * @param clientAuth         client certificates: {@code none}, {@code want} (asked for, checked when sent), {@code need}
 * @param certificate        PEM certificate chain (the server's first), or null with {@link #keyStore}
 * @param privateKey         PEM PKCS#8 private key of {@link #certificate}
 * @param privateKeyPassword the key's password when it is encrypted, else null
 * @param keyStore           PKCS#12 (or {@code .jks}) key store holding the key and chain instead of PEM files
 * @param keyStorePassword   its password (also the key's)
 * @param trust              PEM CA certificates to trust (servers for the clients, client certificates for listeners); null
 *                           with {@link #trustStore}, or neither: the JDK's default CAs
 * @param trustStore         PKCS#12 or JKS trust store instead of {@link #trust}
 * @param trustStorePassword its password
 * @param provider           {@code auto} (OpenSSL through netty-tcnative when on the class path, else the JDK), {@code jdk},
 *                           {@code openssl}
 * @param clientSubjects     the file of client certificate subjects that stand for the API token on this service's ports
 *                           ({@link ClientSubjects}), or null for none; needs {@code clientAuth} want or need
 */
public record TlsSettings(Mode mode, ClientAuth clientAuth, Path certificate, Path privateKey, String privateKeyPassword,
                          Path keyStore, String keyStorePassword, Path trust, Path trustStore, String trustStorePassword,
                          Provider provider, Path clientSubjects) {
    /** No TLS anywhere: the default. */
    public static final TlsSettings OFF = new TlsSettings(Mode.OFF, ClientAuth.NONE, null, null, null, null, null, null, null, null,
        Provider.AUTO);

    /** Settings without a client subjects file. */
    public TlsSettings(final Mode mode, final ClientAuth clientAuth, final Path certificate, final Path privateKey,
                       final String privateKeyPassword, final Path keyStore, final String keyStorePassword, final Path trust,
                       final Path trustStore, final String trustStorePassword, final Provider provider) {
        this(mode, clientAuth, certificate, privateKey, privateKeyPassword, keyStore, keyStorePassword, trust, trustStore,
            trustStorePassword, provider, null);
    }

    /** The same settings with client certificates of the subjects in {@code file} standing for the token. */
    public TlsSettings withClientSubjects(final Path file) {
        return new TlsSettings(mode, clientAuth, certificate, privateKey, privateKeyPassword, keyStore, keyStorePassword, trust,
            trustStore, trustStorePassword, provider, file);
    }

    /** The subjects of {@link #clientSubjects}, read now ({@link ClientSubjects#NONE} without a file or with TLS off). */
    public ClientSubjects subjects() {
        return enabled() ? ClientSubjects.read(clientSubjects) : ClientSubjects.NONE;
    }

    /** Whether a listener speaks TLS, and whether it still takes plaintext. */
    public enum Mode {
        OFF, OPTIONAL, REQUIRED;

        public static Mode parse(final String s) {
            return TlsSettings.parse(Mode.class, s, "off|optional|required");
        }
    }

    /** Whether a listener asks its clients for a certificate. */
    public enum ClientAuth {
        NONE, WANT, NEED;

        public static ClientAuth parse(final String s) {
            return TlsSettings.parse(ClientAuth.class, s, "none|want|need");
        }
    }

    /** Which TLS implementation runs the handshakes and the record encryption. */
    public enum Provider {
        AUTO, JDK, OPENSSL;

        public static Provider parse(final String s) {
            return TlsSettings.parse(Provider.class, s, "auto|jdk|openssl");
        }
    }

    /** True unless the mode is {@link Mode#OFF}: listeners speak TLS and clients connect with it. */
    public boolean enabled() {
        return mode != Mode.OFF;
    }

    /** True when a certificate and key are configured (a listener needs them; a client presents them when asked). */
    public boolean hasKeyMaterial() {
        return keyStore != null || certificate != null && privateKey != null;
    }

    /** Checks the settings: a listener with TLS needs its certificate, and every file named must be readable. */
    public TlsSettings validate() {
        if (mode == null || clientAuth == null || provider == null) {
            throw new IllegalArgumentException("tls mode, client-auth and provider are required [mode=" + mode + ", client-auth="
                + clientAuth + ", provider=" + provider + "]");
        }
        if (!enabled()) {
            return this;
        }
        if (keyStore != null && (certificate != null || privateKey != null)) {
            throw new IllegalArgumentException("give either certificate and private-key (PEM) or key-store, not both");
        }
        if (!hasKeyMaterial()) {
            throw new IllegalArgumentException("tls mode " + mode.name().toLowerCase(Locale.ROOT)
                + " needs the service's certificate: certificate and private-key (PEM), or key-store");
        }
        if (trust != null && trustStore != null) {
            throw new IllegalArgumentException("give either trust (PEM) or trust-store, not both");
        }
        if (clientAuth == ClientAuth.NEED && trust == null && trustStore == null) {
            throw new IllegalArgumentException("client-auth need without trust or trust-store: name the CA that signs client certificates");
        }
        for (final Path p : new Path[] {certificate, privateKey, keyStore, trust, trustStore, clientSubjects}) {
            if (p != null && !Files.isReadable(p)) {
                throw new IllegalArgumentException("cannot read a TLS file [path=" + p.toAbsolutePath() + "]");
            }
        }
        if (clientSubjects != null) {
            if (clientAuth == ClientAuth.NONE) {
                throw new IllegalArgumentException("client-subjects needs client-auth want or need: without them no client certificate "
                    + "is asked for [client-subjects=" + clientSubjects + "]");
            }
            ClientSubjects.read(clientSubjects);
        }
        return this;
    }

    /** The settings without passwords, for logs and status pages. */
    @Override
    public String toString() {
        return "TlsSettings[mode=" + mode + ", clientAuth=" + clientAuth + ", certificate=" + (keyStore != null ? keyStore : certificate)
            + ", trust=" + (trustStore != null ? trustStore : trust != null ? trust : "(jdk default)") + ", provider=" + provider
            + (clientSubjects != null ? ", clientSubjects=" + clientSubjects : "") + "]";
    }

    private static <E extends Enum<E>> E parse(final Class<E> type, final String s, final String known) {
        try {
            return Enum.valueOf(type, s.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("unknown value [value=" + s + ", known=" + known + "]", e);
        }
    }
}
