package io.jtick.sql.pg;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * SCRAM-SHA-256 (RFC 5802/7677, as PostgreSQL runs it, without channel binding) with the API token
 * as the password: the server's keys derived once, one {@link Exchange} per login.
 */
final class PgScram {
    private static final int ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] salt = new byte[16];
    private final byte[] storedKey;
    private final byte[] serverKey;

    PgScram(final String token) {
        RANDOM.nextBytes(salt);
        try {
            final SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            final byte[] salted = f.generateSecret(new PBEKeySpec(token.toCharArray(), salt, ITERATIONS, 256)).getEncoded();
            storedKey = MessageDigest.getInstance("SHA-256").digest(hmac(salted, "Client Key"));
            serverKey = hmac(salted, "Server Key");
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("SCRAM-SHA-256 unavailable in this JVM", e);
        }
    }

    Exchange start() {
        return new Exchange();
    }

    /** One login's exchange: client-first, server-first, client-final, server-final. */
    final class Exchange {
        private String clientFirstBare;
        private String serverFirst;
        private String nonce;

        /** The server-first message for the client's first, or null if it is malformed. */
        String first(final String clientFirst) {
            // gs2 header "n,," or "y,," (no channel binding), then n=user,r=nonce
            final int bare = clientFirst.indexOf(",,");
            if (bare < 0 || clientFirst.startsWith("p=")) {
                return null;
            }
            clientFirstBare = clientFirst.substring(bare + 2);
            final String r = attribute(clientFirstBare, 'r');
            if (r == null || r.isEmpty()) {
                return null;
            }
            final byte[] s = new byte[18];
            RANDOM.nextBytes(s);
            nonce = r + Base64.getEncoder().encodeToString(s);
            serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(salt) + ",i=" + ITERATIONS;
            return serverFirst;
        }

        /** The server-final message ({@code v=...}) when the client's proof holds, else null. */
        String last(final String clientFinal) {
            final int p = clientFinal.lastIndexOf(",p=");
            if (serverFirst == null || p < 0 || !nonce.equals(attribute(clientFinal, 'r'))) {
                return null;
            }
            final String withoutProof = clientFinal.substring(0, p);
            final byte[] proof;
            try {
                proof = Base64.getDecoder().decode(clientFinal.substring(p + 3));
            } catch (final IllegalArgumentException e) {
                return null;
            }
            final String auth = clientFirstBare + "," + serverFirst + "," + withoutProof;
            final byte[] signature = hmac(storedKey, auth);
            if (proof.length != signature.length) {
                return null;
            }
            final byte[] clientKey = new byte[proof.length];
            for (int i = 0; i < proof.length; i++) {
                clientKey[i] = (byte) (proof[i] ^ signature[i]);
            }
            try {
                if (!MessageDigest.isEqual(MessageDigest.getInstance("SHA-256").digest(clientKey), storedKey)) {
                    return null;
                }
            } catch (final GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
            return "v=" + Base64.getEncoder().encodeToString(hmac(serverKey, auth));
        }
    }

    private static String attribute(final String message, final char name) {
        for (final String part : message.split(",")) {
            if (part.length() >= 2 && part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        return null;
    }

    private static byte[] hmac(final byte[] key, final String data) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
