package io.jtick.sql.q;

import io.jtick.sql.SqlException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The engine's refusals as q's errors: an unknown table or column is its name, a mismatch {@code 'type}, a limit {@code 'limit}. */
final class QErrors {
    private static final Pattern NAMED = Pattern.compile("unknown (?:table|column) \\[(?:table=[^,\\]]*, )?(?:table|column)=([^,\\]]+)\\]");

    private QErrors() {
    }

    static QException of(final SqlException e) {
        final String m = e.getMessage();
        final Matcher named = NAMED.matcher(m);
        if (named.find()) {
            return new QException(named.group(1));
        }
        return switch (e.sqlState()) {
            case SqlException.LIMIT_EXCEEDED -> new QException("limit [" + m + "]");
            case SqlException.DATATYPE_MISMATCH -> new QException("type [" + m + "]");
            case SqlException.UNAVAILABLE -> new QException("conn [" + m + "]");
            case SqlException.NOT_SUPPORTED -> new QException("nyi [" + m + "]");
            default -> new QException(m.startsWith("type mismatch") || m.startsWith("aggregate ") ? "type [" + m + "]" : m);
        };
    }
}
