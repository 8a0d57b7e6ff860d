package io.jtick.sql.q;

/**
 * One token of q text. {@code text} is what was written; a literal's value is {@code value}
 * ({@link QValue}).
 *
 * @param kind   what it is
 * @param text   the source text
 * @param value  the literal's value (LITERAL only)
 * @param spaced true when whitespace came before it (q tells {@code x -1} from {@code x-1} so)
 */
record QToken(Kind kind, String text, QValue value, boolean spaced) {
    enum Kind { NAME, LITERAL, OP, LPAREN, RPAREN, LBRACKET, RBRACKET, SEMI, COLON, END }

    boolean is(final Kind k, final String t) {
        return kind == k && text.equals(t);
    }

    boolean isName(final String t) {
        return kind == Kind.NAME && text.equals(t);
    }
}
