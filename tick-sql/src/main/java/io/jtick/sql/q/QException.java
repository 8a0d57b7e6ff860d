package io.jtick.sql.q;

/**
 * A q error: its text is what a kdb+ client shows after the quote ({@code 'type}, {@code 'trade},
 * {@code 'nyi [select ... xasc]}). q's own names come first, then jtick's context in brackets.
 */
public final class QException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public QException(final String text) {
        super(text, null, false, false);
    }

    /** {@code 'nyi}, naming the construct jtick does not run. */
    public static QException nyi(final String what) {
        return new QException("nyi [" + what + "]");
    }

    /** {@code 'type} with context. */
    public static QException type(final String context) {
        return new QException("type [" + context + "]");
    }

    /** {@code 'length} with context. */
    public static QException length(final String context) {
        return new QException("length [" + context + "]");
    }

    /** A parse error: q's {@code 'parse}, with where. */
    public static QException parse(final String context) {
        return new QException("parse [" + context + "]");
    }
}
