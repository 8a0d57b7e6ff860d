package io.jtick.core.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Builds the TLS contexts of one {@link TlsSettings}: Netty's {@link SslContext} for a listener
 * ({@link #server}) and for a client ({@link #client}: the server's host name verified, as HTTPS does),
 * and the JDK's {@link SSLContext} for the HTTP clients between services ({@link #jdk}). The same key and
 * trust managers feed all three, from PEM files or key stores. TLS 1.3 and 1.2 only.
 */
public final class TlsContexts {
    /** The protocol versions every jtick port and client accepts. */
    public static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TlsContexts() {
    }

    /** A listener's context: its certificate, client certificates asked for as {@link TlsSettings#clientAuth} says. */
    public static SslContext server(final TlsSettings settings) {
        try {
            final SslContextBuilder b = SslContextBuilder.forServer(keyManagers(settings))
                .sslProvider(provider(settings.provider()))
                .protocols(PROTOCOLS)
                .clientAuth(switch (settings.clientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case WANT -> ClientAuth.OPTIONAL;
                    case NEED -> ClientAuth.REQUIRE;
                });
            final TrustManagerFactory trust = trustManagers(settings);
            if (trust != null) {
                b.trustManager(trust);
            }
            return b.build();
        } catch (final GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot build the TLS server context [" + settings + "]: " + e.getMessage(), e);
        }
    }

    /** A client's context: the trusted CAs, the service's own certificate when it has one, the server's name verified. */
    public static SslContext client(final TlsSettings settings) {
        try {
            final SslContextBuilder b = SslContextBuilder.forClient()
                .sslProvider(provider(settings.provider()))
                .protocols(PROTOCOLS)
                .endpointIdentificationAlgorithm("HTTPS");
            if (settings.hasKeyMaterial()) {
                b.keyManager(keyManagers(settings));
            }
            final TrustManagerFactory trust = trustManagers(settings);
            if (trust != null) {
                b.trustManager(trust);
            }
            return b.build();
        } catch (final GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot build the TLS client context [" + settings + "]: " + e.getMessage(), e);
        }
    }

    /** The JDK's context for {@code java.net.http.HttpClient} and {@code HttpsURLConnection} (both verify the host name). */
    public static SSLContext jdk(final TlsSettings settings) {
        try {
            final SSLContext ssl = SSLContext.getInstance("TLS");
            final TrustManagerFactory trust = trustManagers(settings);
            ssl.init(settings.hasKeyMaterial() ? keyManagers(settings).getKeyManagers() : null,
                trust == null ? null : trust.getTrustManagers(), null);
            return ssl;
        } catch (final GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot build the TLS context [" + settings + "]: " + e.getMessage(), e);
        }
    }

    /** The provider {@code p} names; {@code auto} is OpenSSL when netty-tcnative is on the class path. */
    public static SslProvider provider(final TlsSettings.Provider p) {
        return switch (p) {
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new IllegalArgumentException("tls provider openssl needs netty-tcnative-boringssl-static on the class path: "
                        + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    static KeyManagerFactory keyManagers(final TlsSettings s) throws GeneralSecurityException, IOException {
        final KeyStore store;
        final char[] password;
        if (s.keyStore() != null) {
            password = chars(s.keyStorePassword());
            store = load(s.keyStore(), password);
        } else {
            password = chars(s.privateKeyPassword());
            final List<? extends Certificate> chain = certificates(s.certificate());
            if (chain.isEmpty()) {
                throw new GeneralSecurityException("no certificate in " + s.certificate());
            }
            final PrivateKey key = privateKey(s.privateKey(), s.privateKeyPassword());
            checkPair(key, chain.get(0), s);
            store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("tick", key, password, chain.toArray(new Certificate[0]));
        }
        final KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, password);
        return kmf;
    }

    /** Refuses a private key that is not the certificate's (a renewal caught half way, two files mixed up). */
    private static void checkPair(final PrivateKey key, final Certificate certificate, final TlsSettings s)
        throws GeneralSecurityException {
        final String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null) {
            return;
        }
        final byte[] probe = "jtick key check".getBytes(StandardCharsets.US_ASCII);
        final Signature sign = Signature.getInstance(algorithm);
        sign.initSign(key);
        sign.update(probe);
        final byte[] signature = sign.sign();
        final Signature verify = Signature.getInstance(algorithm);
        try {
            verify.initVerify(certificate.getPublicKey());
            verify.update(probe);
            if (verify.verify(signature)) {
                return;
            }
        } catch (final InvalidKeyException e) {
            // a key of another algorithm than the certificate's: not its key either
        }
        throw new GeneralSecurityException("the private key is not the certificate's [certificate=" + s.certificate() + ", private-key="
            + s.privateKey() + "]");
    }

    /** The trust of {@code s}, or null for the JDK's default CAs. */
    static TrustManagerFactory trustManagers(final TlsSettings s) throws GeneralSecurityException, IOException {
        final KeyStore store;
        if (s.trustStore() != null) {
            store = load(s.trustStore(), chars(s.trustStorePassword()));
        } else if (s.trust() != null) {
            store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (final Certificate c : certificates(s.trust())) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new GeneralSecurityException("no certificate in " + s.trust());
            }
        } else {
            return null;
        }
        final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        return tmf;
    }

    private static KeyStore load(final Path file, final char[] password) throws GeneralSecurityException, IOException {
        final String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        final KeyStore store = KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store;
    }

    private static List<? extends Certificate> certificates(final Path pem) throws GeneralSecurityException, IOException {
        try (InputStream in = Files.newInputStream(pem)) {
            return List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    /** A PEM PKCS#8 key ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED PRIVATE KEY} with its password), RSA or EC. */
    static PrivateKey privateKey(final Path pem, final String password) throws GeneralSecurityException, IOException {
        final String text = Files.readString(pem, StandardCharsets.US_ASCII);
        final boolean encrypted = text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        if (!encrypted && !text.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new GeneralSecurityException("not a PKCS#8 PEM private key (BEGIN PRIVATE KEY) [path=" + pem
                + "]: convert it with openssl pkcs8 -topk8 -nocrypt");
        }
        final String label = encrypted ? "ENCRYPTED PRIVATE KEY" : "PRIVATE KEY";
        final int from = text.indexOf("-----BEGIN " + label + "-----") + ("-----BEGIN " + label + "-----").length();
        final int to = text.indexOf("-----END " + label + "-----");
        final byte[] der = Base64.getMimeDecoder().decode(text.substring(from, to));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        if (encrypted) {
            if (password == null) {
                throw new GeneralSecurityException("the private key is encrypted: set its password [path=" + pem + "]");
            }
            final EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            final SecretKeyFactory f = SecretKeyFactory.getInstance(info.getAlgName());
            spec = info.getKeySpec(f.generateSecret(new PBEKeySpec(password.toCharArray())));
        }
        for (final String algorithm : new String[] {"RSA", "EC", "Ed25519", "RSASSA-PSS"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (final InvalidKeySpecException e) {
                // the next algorithm
            }
        }
        throw new GeneralSecurityException("unsupported private key algorithm [path=" + pem + "]");
    }

    private static char[] chars(final String password) {
        return password == null ? new char[0] : password.toCharArray();
    }
}
