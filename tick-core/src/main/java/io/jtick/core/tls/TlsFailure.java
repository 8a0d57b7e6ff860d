package io.jtick.core.tls;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;

import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;

/**
 * Why a TLS connection was refused, the {@code reason} tag of {@code tick_tls_handshake_failures_total}. Read from the
 * exception the provider (JDK or OpenSSL) raised; the peer's alerts arrive as text, so both providers' wordings are known.
 */
public enum TlsFailure {
    /** A plaintext client on a port that requires TLS. */
    PLAINTEXT("plaintext"),
    /** The client's certificate has expired or is not valid yet. */
    EXPIRED("expired"),
    /** The client's certificate is not signed by a trusted CA. */
    UNTRUSTED("untrusted"),
    /** {@code client-auth need} and the client sent no certificate. */
    NO_CLIENT_CERTIFICATE("no-client-certificate"),
    /** The client refused this server's certificate (unknown CA, expired, another host name) and said so with an alert. */
    PEER_REFUSED("peer-refused"),
    /** No protocol version or cipher suite in common. */
    PROTOCOL("protocol"),
    /** The handshake did not finish in time. */
    TIMEOUT("timeout"),
    /** Anything else (a malformed record, a reset). */
    OTHER("other");

    private final String tag;

    TlsFailure(final String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }

    /** The reason of a failed handshake. */
    public static TlsFailure of(final Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException) {
                return EXPIRED;
            }
            if (t instanceof CertPathValidatorException cpv && (cpv.getReason() == CertPathValidatorException.BasicReason.EXPIRED
                || cpv.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID)) {
                return EXPIRED;
            }
            if (t instanceof SslHandshakeTimeoutException) {
                return TIMEOUT;
            }
            if (t instanceof NotSslRecordException) {
                return PLAINTEXT;
            }
        }
        final String m = messages(failure);
        if (m.contains("received fatal alert") || m.contains("sslv3_alert") || m.contains("tlsv1_alert") || m.contains("tlsv13_alert")) {
            return m.contains("protocol_version") ? PROTOCOL : PEER_REFUSED;
        }
        if (m.contains("empty client certificate chain") || m.contains("peer_did_not_return_a_certificate")
            || m.contains("certificate_required")) {
            return NO_CLIENT_CERTIFICATE;
        }
        if (m.contains("expired") || m.contains("not yet valid")) {
            return EXPIRED;
        }
        if (m.contains("pkix") || m.contains("certification path") || m.contains("certificate_verify_failed") || m.contains("unknown_ca")) {
            return UNTRUSTED;
        }
        if (m.contains("protocol") || m.contains("cipher suites in common") || m.contains("no_shared_cipher")) {
            return PROTOCOL;
        }
        return OTHER;
    }

    private static String messages(final Throwable failure) {
        final StringBuilder b = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            b.append(t.getMessage()).append(' ');
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }
}
