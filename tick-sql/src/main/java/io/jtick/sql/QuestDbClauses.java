package io.jtick.sql;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * QuestDB's three clauses that no general SQL parser knows ({@code SAMPLE BY 1m},
 * {@code LATEST ON time PARTITION BY sym} (and the older {@code LATEST BY sym}), {@code ASOF JOIN}),
 * taken out of the statement before JSqlParser reads it and handed to {@link SqlCompiler} beside the
 * parsed tree. Only their keywords are matched, outside string literals, quoted names and comments;
 * everything else is the parser's.
 *
 * @param sql       the statement without the clauses ({@code ASOF JOIN} left as a plain {@code JOIN})
 * @param sampleBy  the bucket of {@code SAMPLE BY}, like {@code 1m}, or null
 * @param latestOn  the timestamp column of {@code LATEST ON}, or null
 * @param latestBy  the partition columns of {@code LATEST ON}, comma separated, or null
 * @param asof      true when the join was an {@code ASOF JOIN}
 */
record QuestDbClauses(String sql, String sampleBy, String latestOn, String latestBy, boolean asof) {
    private static final Pattern SAMPLE_BY = Pattern.compile(
        "(?i)\\bSAMPLE\\s+BY\\s+(\\d+\\s*[a-z]+)(\\s+ALIGN\\s+TO\\s+(CALENDAR|FIRST\\s+OBSERVATION))?");
    private static final Pattern LATEST_ON = Pattern.compile(
        "(?i)\\bLATEST\\s+ON\\s+([a-z_][a-z0-9_]*)\\s+PARTITION\\s+BY\\s+([a-z_][a-z0-9_]*(\\s*,\\s*[a-z_][a-z0-9_]*)*)");
    private static final Pattern LATEST_BY = Pattern.compile("(?i)\\bLATEST\\s+BY\\s+([a-z_][a-z0-9_]*(\\s*,\\s*[a-z_][a-z0-9_]*)*)");
    private static final Pattern ASOF_JOIN = Pattern.compile("(?i)\\bASOF\\s+JOIN\\b");

    static QuestDbClauses of(final String sql) {
        final String masked = mask(sql);
        final StringBuilder out = new StringBuilder(sql);
        final StringBuilder m = new StringBuilder(masked);
        String sampleBy = null;
        String latestOn = null;
        String latestBy = null;
        boolean asof = false;
        Matcher x = SAMPLE_BY.matcher(m);
        if (x.find()) {
            if (x.group(3) != null && x.group(3).toUpperCase(java.util.Locale.ROOT).startsWith("FIRST")) {
                throw SqlException.notSupported("SAMPLE BY ... ALIGN TO FIRST OBSERVATION (buckets align to the calendar)");
            }
            sampleBy = x.group(1).replaceAll("\\s+", "");
            blank(out, m, x.start(), x.end());
        }
        x = LATEST_ON.matcher(m);
        if (x.find()) {
            latestOn = x.group(1);
            latestBy = x.group(2).replaceAll("\\s+", "");
            blank(out, m, x.start(), x.end());
        } else {
            x = LATEST_BY.matcher(m);
            if (x.find()) {
                latestOn = "time";
                latestBy = x.group(1).replaceAll("\\s+", "");
                blank(out, m, x.start(), x.end());
            }
        }
        x = ASOF_JOIN.matcher(m);
        if (x.find()) {
            asof = true;
            // "ASOF JOIN" -> "     JOIN": the parser sees a plain join, the compiler knows it was as-of
            blank(out, m, x.start(), x.start() + 4);
            if (x.find()) {
                throw SqlException.notSupported("more than one ASOF JOIN");
            }
        }
        return new QuestDbClauses(out.toString(), sampleBy, latestOn, latestBy, asof);
    }

    private static void blank(final StringBuilder out, final StringBuilder masked, final int from, final int to) {
        for (int i = from; i < to; i++) {
            out.setCharAt(i, ' ');
            masked.setCharAt(i, ' ');
        }
    }

    /** The statement with string literals, quoted names and comments replaced by spaces (same length). */
    static String mask(final String sql) {
        final char[] c = sql.toCharArray();
        int i = 0;
        while (i < c.length) {
            final char ch = c[i];
            if (ch == '\'' || ch == '"') {
                int j = i + 1;
                while (j < c.length) {
                    if (c[j] == ch) {
                        if (j + 1 < c.length && c[j + 1] == ch) {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                for (int k = i; k < Math.min(j + 1, c.length); k++) {
                    c[k] = ' ';
                }
                i = j + 1;
            } else if (ch == '-' && i + 1 < c.length && c[i + 1] == '-') {
                while (i < c.length && c[i] != '\n') {
                    c[i++] = ' ';
                }
            } else if (ch == '/' && i + 1 < c.length && c[i + 1] == '*') {
                final int end = sql.indexOf("*/", i + 2);
                final int stop = end < 0 ? c.length : end + 2;
                while (i < stop) {
                    c[i++] = ' ';
                }
            } else {
                i++;
            }
        }
        return new String(c);
    }
}
