package io.jtick.core.auth;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The check one listener (an HTTP server, the tickerplant's port) makes of each call: it is bound
 * to an address, the settings say whether that address asks for the token, the call is a read or a
 * write, and the caller presents a token or nothing. Tokens are compared as SHA-256 digests in
 * constant time, so neither their content nor their length shows in the answer time. Thread-safe.
 */
public final class AccessCheck {
    /** What a call does. */
    public enum Access {
        /** Reads state: status, queries, subscriptions. */
        READ,
        /** Changes state: end of day, mode, reload, import, replay, starting load, publishing. */
        WRITE
    }

    /** The answer to one call. */
    public enum Verdict {
        ALLOWED,
        /** The call needs a token but none is configured: refused whatever the caller sends. */
        NO_TOKEN_CONFIGURED,
        /** The caller sent no token. */
        TOKEN_MISSING,
        /** The caller sent a token that is not the configured one. */
        TOKEN_WRONG;

        public boolean allowed() {
            return this == ALLOWED;
        }
    }

    private final AccessSettings settings;
    private final String bound;
    private final boolean guarded;
    private final byte[] tokenDigest;

    private AccessCheck(final AccessSettings settings, final String bound, final boolean guarded) {
        this.settings = settings;
        this.bound = bound;
        this.guarded = guarded;
        this.tokenDigest = settings.hasToken() ? sha256(settings.token().getBytes(StandardCharsets.US_ASCII), 0,
            settings.token().length()) : null;
    }

    /**
     * The check of a listener bound to {@code bound} (null: all interfaces, which is off loopback).
     */
    public static AccessCheck forListener(final AccessSettings settings, final InetAddress bound) {
        settings.validate();
        final boolean offLoopback = bound == null || !bound.isLoopbackAddress();
        final boolean guarded = settings.guard() == AccessSettings.Guard.ALWAYS || offLoopback;
        return new AccessCheck(settings, bound == null ? "*" : bound.getHostAddress(), guarded);
    }

    /** True when this listener asks for the token at all (for writes at least). */
    public boolean guarded() {
        return guarded;
    }

    /** True when a call of this kind must present the token here. */
    public boolean requires(final Access access) {
        return guarded && (access == Access.WRITE || settings.protectReads());
    }

    /** The address the listener is bound to, as given ({@code *} for all interfaces). */
    public String bound() {
        return bound;
    }

    public AccessSettings settings() {
        return settings;
    }

    /** Checks a call presenting {@code presented} (null: nothing presented). */
    public Verdict check(final Access access, final CharSequence presented) {
        return check(access, presented, null);
    }

    /** Checks a call presenting {@code presented} on a connection whose client certificate carries {@code certified} (or null). */
    public Verdict check(final Access access, final CharSequence presented, final Access certified) {
        if (presented == null) {
            return check(access, null, 0, 0, certified);
        }
        final byte[] bytes = presented.toString().getBytes(StandardCharsets.UTF_8);
        return check(access, bytes, 0, bytes.length, certified);
    }

    /** Checks a call presenting {@code length} bytes of {@code presented} from {@code offset} (null: nothing presented). */
    public Verdict check(final Access access, final byte[] presented, final int offset, final int length) {
        return check(access, presented, offset, length, null);
    }

    /**
     * Checks a call on a connection whose verified client certificate carries {@code certified} (its subject's access in
     * {@link ClientSubjects}; null: none, or not mapped): a grant that covers the call stands for the token.
     */
    public Verdict check(final Access access, final byte[] presented, final int offset, final int length, final Access certified) {
        if (!requires(access) || covers(certified, access)) {
            return Verdict.ALLOWED;
        }
        if (tokenDigest == null) {
            return Verdict.NO_TOKEN_CONFIGURED;
        }
        if (presented == null || length == 0) {
            return Verdict.TOKEN_MISSING;
        }
        return MessageDigest.isEqual(tokenDigest, sha256(presented, offset, length)) ? Verdict.ALLOWED : Verdict.TOKEN_WRONG;
    }

    /**
     * Null when a call presenting {@code presented} (null: nothing) may go on; otherwise the reason
     * for the caller, which never shows a token. For listeners that answer with a message of their own
     * (the tickerplant's and the replay port's ERROR frames).
     */
    public String refusal(final Access access, final CharSequence presented) {
        return refusal(access, presented, null);
    }

    /** {@link #refusal(Access, CharSequence)} on a connection whose client certificate carries {@code certified} (or null). */
    public String refusal(final Access access, final CharSequence presented, final Access certified) {
        final String what = access == Access.WRITE ? "write" : "read";
        return switch (check(access, presented, certified)) {
            case ALLOWED -> null;
            case NO_TOKEN_CONFIGURED -> "the API token is required here but none is configured (tick.api.token), so every "
                + what + " is refused [access=" + what + ", bound=" + bound + "]";
            case TOKEN_MISSING -> "the API token is required [access=" + what + ", bound=" + bound + "]";
            case TOKEN_WRONG -> "wrong API token [access=" + what + ", bound=" + bound + "]";
        };
    }

    /** True when a certificate's grant {@code certified} allows {@code access}: write allows both, read only reads. */
    public static boolean covers(final Access certified, final Access access) {
        return certified == Access.WRITE || certified == Access.READ && access == Access.READ;
    }

    /** One line for the start-up log: where it listens and what it asks for. */
    public String describe() {
        if (!guarded) {
            return "open (bound to " + bound + ", loopback)";
        }
        return "token required for " + (settings.protectReads() ? "reads and writes" : "writes") + " (bound to " + bound
            + (settings.guard() == AccessSettings.Guard.ALWAYS ? ", guard=always" : "") + ")"
            + (settings.hasToken() ? "" : ": NO TOKEN CONFIGURED, so those calls are refused");
    }

    private static byte[] sha256(final byte[] bytes, final int offset, final int length) {
        try {
            final MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(bytes, offset, length);
            return d.digest();
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
