package io.jtick.sql;

/** Statement text helpers the PostgreSQL port shares with the compiler. */
public final class SqlTexts {
    private SqlTexts() {
    }

    /** The statement with string literals, quoted names and comments blanked (same length): for finding ; and $n. */
    public static String mask(final String sql) {
        return QuestDbClauses.mask(sql);
    }
}
