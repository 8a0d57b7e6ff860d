package io.jtick.core.auth;

import io.jtick.core.auth.AccessCheck.Access;

import javax.security.auth.x500.X500Principal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Client certificates that stand for the API token ({@code tick.tls.client-subjects}): a file of lines
 * {@code <subject> -> read|write}, the subject an X.500 name as {@code openssl x509 -noout -subject -nameopt RFC2253}
 * prints it ({@code CN=rdb,O=jtick}; attribute order as in the certificate, case and spaces around separators
 * ignored), {@code write} allowing reads too. Blank lines and {@code #} comments are skipped; a bad line stops start-up
 * with its number. A listener that asked for client certificates ({@code tick.tls.client-auth=want|need}) and verified
 * one against its trust gives that connection the subject's access without a token. Immutable, thread-safe.
 */
public final class ClientSubjects {
    /** No certificate stands for the token: the default. */
    public static final ClientSubjects NONE = new ClientSubjects(Map.of(), null);

    private final Map<String, Access> grants;
    private final Path file;

    private ClientSubjects(final Map<String, Access> grants, final Path file) {
        this.grants = grants;
        this.file = file;
    }

    /** Reads {@code file} (null: {@link #NONE}). */
    public static ClientSubjects read(final Path file) {
        if (file == null) {
            return NONE;
        }
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file);
        } catch (final IOException e) {
            throw new IllegalArgumentException("cannot read the client subjects file [path=" + file.toAbsolutePath() + "]: " + e, e);
        }
    }

    static ClientSubjects parse(final List<String> lines, final Path file) {
        final Map<String, Access> grants = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            final String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            final int arrow = line.lastIndexOf("->");
            final String access = arrow < 0 ? "" : line.substring(arrow + 2).strip().toLowerCase(Locale.ROOT);
            if (arrow <= 0 || !("read".equals(access) || "write".equals(access))) {
                errors.add("line " + (i + 1) + ": expected '<subject> -> read|write' [line=" + line + "]");
                continue;
            }
            final String subject = line.substring(0, arrow).strip();
            try {
                final String key = canonical(new X500Principal(subject));
                if (grants.put(key, "write".equals(access) ? Access.WRITE : Access.READ) != null) {
                    errors.add("line " + (i + 1) + ": subject given twice [subject=" + subject + "]");
                }
            } catch (final IllegalArgumentException e) {
                errors.add("line " + (i + 1) + ": not an X.500 name [subject=" + subject + "]: " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("bad client subjects file [path=" + file + "]: " + String.join("; ", errors));
        }
        return new ClientSubjects(Map.copyOf(grants), file);
    }

    /** The access a verified certificate of {@code subject} carries, or null when its subject is not in the file. */
    public Access grant(final X500Principal subject) {
        return subject == null || grants.isEmpty() ? null : grants.get(canonical(subject));
    }

    /** True when no subject is mapped. */
    public boolean isEmpty() {
        return grants.isEmpty();
    }

    /** For logs: how many subjects and from where. */
    public String describe() {
        return grants.isEmpty() ? "none" : grants.size() + " from " + file;
    }

    private static String canonical(final X500Principal p) {
        return p.getName(X500Principal.CANONICAL);
    }
}
