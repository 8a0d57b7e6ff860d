package io.jtick.core.kdb;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessSettings;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Who may log in on the kdb+ port (q's {@code -u}, and jtick's API token): with a users file, the
 * users it lists with their passwords (plain, or 32 hex digits: the MD5 of the password), on any
 * address; without one, what the listener's {@link AccessCheck} allows: anyone on loopback, only the
 * API token (as the password, any user name) off loopback or with {@code tick.api.guard=always}, and
 * nobody when it asks for a token and none is configured. The API token is also accepted beside a
 * users file. Passwords are compared as digests in constant time. Thread-safe, immutable.
 */
public final class KdbAccess {
    /** The answer to one login. */
    public enum Verdict {
        ALLOWED, UNKNOWN_USER, WRONG_PASSWORD, TOKEN_MISSING, TOKEN_WRONG, NO_CREDENTIALS_CONFIGURED;

        public boolean allowed() {
            return this == ALLOWED;
        }

        /** Lower-case, hyphenated: the metrics tag and log word. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private record Entry(byte[] digest, boolean md5) {
    }

    private final Map<String, Entry> users;
    private final AccessCheck listener;
    private final AccessCheck token;
    private final Path usersFile;

    private KdbAccess(final Map<String, Entry> users, final AccessCheck listener, final AccessCheck token, final Path usersFile) {
        this.users = users;
        this.listener = listener;
        this.token = token;
        this.usersFile = usersFile;
    }

    /** The check of a kdb+ port bound to {@code bound} (null: every address); reads the users file now. */
    public static KdbAccess of(final KdbSettings settings, final InetAddress bound) throws IOException {
        final AccessSettings a = settings.access();
        final AccessCheck listener = AccessCheck.forListener(a, bound);
        final AccessCheck token = a.hasToken()
            ? AccessCheck.forListener(new AccessSettings(a.token(), AccessSettings.Guard.ALWAYS, false), bound) : null;
        Map<String, Entry> users = null;
        if (settings.usersFile() != null) {
            users = parse(Files.readAllLines(settings.usersFile(), StandardCharsets.ISO_8859_1), settings.usersFile());
        }
        return new KdbAccess(users, listener, token, settings.usersFile());
    }

    static Map<String, Entry> parse(final List<String> lines, final Path file) {
        final Map<String, Entry> users = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            final String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            final int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("kdb+ users file: expected user:password [file=" + file + ", line=" + (i + 1) + "]");
            }
            final String password = line.substring(colon + 1);
            final boolean md5 = password.matches("[0-9a-fA-F]{32}");
            final byte[] stored = md5 ? HexFormat.of().parseHex(password) : password.getBytes(StandardCharsets.ISO_8859_1);
            users.put(line.substring(0, colon), new Entry(md5 ? stored : sha256(stored), md5));
        }
        return users;
    }

    /** Checks one handshake's user and password. */
    public Verdict check(final String user, final byte[] password) {
        return check(user, password, null);
    }

    /**
     * Checks one handshake's user and password on a connection whose verified client certificate carries {@code certified}
     * (null: none, or not in {@code tick.tls.client-subjects}): a write grant logs in whatever the user and password (a kdb+
     * login has no read-only kind).
     */
    public Verdict check(final String user, final byte[] password, final AccessCheck.Access certified) {
        if (certified == AccessCheck.Access.WRITE) {
            return Verdict.ALLOWED;
        }
        if (users != null) {
            final Entry e = users.get(user);
            if (e != null && MessageDigest.isEqual(e.digest(), e.md5() ? md5(password) : sha256(password))) {
                return Verdict.ALLOWED;
            }
            if (token != null && token.check(AccessCheck.Access.WRITE, password, 0, password.length).allowed()) {
                return Verdict.ALLOWED;
            }
            return e == null ? Verdict.UNKNOWN_USER : Verdict.WRONG_PASSWORD;
        }
        return switch (listener.check(AccessCheck.Access.WRITE, password, 0, password.length)) {
            case ALLOWED -> Verdict.ALLOWED;
            case NO_TOKEN_CONFIGURED -> Verdict.NO_CREDENTIALS_CONFIGURED;
            case TOKEN_MISSING -> Verdict.TOKEN_MISSING;
            case TOKEN_WRONG -> Verdict.TOKEN_WRONG;
        };
    }

    /** One line for the start-up log. */
    public String describe() {
        if (users != null) {
            return users.size() + " users from " + usersFile + (token != null ? ", or the API token as password" : "");
        }
        if (!listener.guarded()) {
            return "any user (bound to " + listener.bound() + ", loopback, no users file)";
        }
        return token != null ? "the API token as password (bound to " + listener.bound() + ")"
            : "NOBODY: bound to " + listener.bound() + " without a users file (tick.tp.kdb.users) or API token (tick.api.token)";
    }

    private static byte[] sha256(final byte[] b) {
        return digest("SHA-256", b);
    }

    private static byte[] md5(final byte[] b) {
        return digest("MD5", b);
    }

    private static byte[] digest(final String algorithm, final byte[] b) {
        try {
            return MessageDigest.getInstance(algorithm).digest(b);
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + algorithm, e);
        }
    }
}
