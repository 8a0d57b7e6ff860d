package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.sql.q.QToken.Kind;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cuts q text into tokens: names ({@code trade}, {@code time.minute}, {@code .z.p}), literals
 * (numbers with q's type suffixes, booleans, symbols and symbol vectors, strings, dates,
 * timestamps, times, minutes, seconds, timespans, nulls), operators, brackets, {@code ;} and
 * {@code :}. A {@code -} is a negative number's sign where q reads it so (after an operator, a
 * bracket or a space, directly before a digit). Juxtaposed literals ({@code 09:30 10:00}) stay
 * separate tokens; the parser makes them one vector.
 */
final class QLexer {
    private static final Pattern DATE = Pattern.compile("(\\d{4})\\.(\\d{2})\\.(\\d{2})");
    private static final Pattern TIMESTAMP =
        Pattern.compile("(\\d{4}\\.\\d{2}\\.\\d{2})[DT](\\d{2})(?::(\\d{2})(?::(\\d{2})(?:\\.(\\d{0,9}))?)?)?");
    private static final Pattern TIMESPAN = Pattern.compile("(\\d+)D(?:(\\d{2})(?::(\\d{2})(?::(\\d{2})(?:\\.(\\d{0,9}))?)?)?)?");
    private static final Pattern CLOCK = Pattern.compile("(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{0,9}))?)?");
    private static final long NS_PER_DAY = 86_400_000_000_000L;

    private QLexer() {
    }

    static List<QToken> lex(final String text) {
        final List<QToken> out = new ArrayList<>();
        final int n = text.length();
        int i = 0;
        while (i < n) {
            final int start = i;
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            final boolean spaced = i > start || i == 0;
            if (i >= n) {
                break;
            }
            final char c = text.charAt(i);
            if (c == '`') {
                i = symbols(text, i, out, spaced);
            } else if (c == '"') {
                i = string(text, i, out, spaced);
            } else if (Character.isDigit(c) || c == '-' && negative(text, i, out, spaced)) {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '.' || text.charAt(j) == ':')) {
                    j++;
                }
                final String word = text.substring(i, j);
                out.add(new QToken(Kind.LITERAL, word, number(word), spaced));
                i = j;
            } else if (Character.isLetter(c) || c == '.' && i + 1 < n && Character.isLetter(text.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '_' || text.charAt(j) == '.')) {
                    j++;
                }
                out.add(new QToken(Kind.NAME, text.substring(i, j), null, spaced));
                i = j;
            } else {
                final Kind k = switch (c) {
                    case '(' -> Kind.LPAREN;
                    case ')' -> Kind.RPAREN;
                    case '[' -> Kind.LBRACKET;
                    case ']' -> Kind.RBRACKET;
                    case ';' -> Kind.SEMI;
                    case ':' -> i + 1 < n && text.charAt(i + 1) == ':' ? Kind.OP : Kind.COLON;
                    default -> Kind.OP;
                };
                int j = i + 1;
                if (k == Kind.OP && j < n && (c == '<' && (text.charAt(j) == '>' || text.charAt(j) == '=')
                    || c == '>' && text.charAt(j) == '=' || c == ':' && text.charAt(j) == ':')) {
                    j++;
                }
                if (k == Kind.OP && "+-*%=<>,#~!?$@.^&|_'/\\:".indexOf(c) < 0) {
                    throw QException.parse("unexpected character [char=" + c + ", at=" + i + "]");
                }
                out.add(new QToken(k, text.substring(i, j), null, spaced));
                i = j;
            }
        }
        out.add(new QToken(Kind.END, "", null, true));
        return out;
    }

    /** A {@code -} that starts a negative number: before a digit, after no noun (or after a space with none after it). */
    private static boolean negative(final String text, final int i, final List<QToken> out, final boolean spaced) {
        if (i + 1 >= text.length() || !Character.isDigit(text.charAt(i + 1))) {
            return false;
        }
        if (out.isEmpty()) {
            return true;
        }
        final Kind prev = out.get(out.size() - 1).kind();
        return prev != Kind.NAME && prev != Kind.LITERAL && prev != Kind.RPAREN && prev != Kind.RBRACKET || spaced;
    }

    private static int symbols(final String text, final int from, final List<QToken> out, final boolean spaced) {
        final List<String> syms = new ArrayList<>();
        int i = from;
        while (i < text.length() && text.charAt(i) == '`') {
            int j = i + 1;
            while (j < text.length() && (Character.isLetterOrDigit(text.charAt(j)) || "_.:/".indexOf(text.charAt(j)) >= 0)) {
                j++;
            }
            syms.add(text.substring(i + 1, j));
            i = j;
        }
        final QValue v = syms.size() == 1 ? QValue.symbol(syms.get(0)) : new QValue(KdbType.SYMBOL, syms.toArray(new String[0]));
        out.add(new QToken(Kind.LITERAL, text.substring(from, i), v, spaced));
        return i;
    }

    private static int string(final String text, final int from, final List<QToken> out, final boolean spaced) {
        final StringBuilder sb = new StringBuilder();
        int i = from + 1;
        while (i < text.length() && text.charAt(i) != '"') {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                c = switch (text.charAt(++i)) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case 'r' -> '\r';
                    default -> text.charAt(i);
                };
            }
            sb.append(c);
            i++;
        }
        if (i >= text.length()) {
            throw QException.parse("string without its closing quote [at=" + from + "]");
        }
        final QValue v = sb.length() == 1 ? new QValue(-KdbType.CHAR, (long) sb.charAt(0)) : QValue.chars(sb.toString());
        out.add(new QToken(Kind.LITERAL, text.substring(from, i + 1), v, spaced));
        return i + 1;
    }

    /** A numeric or temporal literal, q's way ({@code 100}, {@code 100i}, {@code 1.5}, {@code 1b}, {@code 2018.01.02}, {@code 0D00:05}). */
    static QValue number(final String w) {
        try {
            return parseNumber(w);
        } catch (final NumberFormatException | DateTimeParseException e) {
            throw QException.parse("bad literal [literal=" + w + "]");
        }
    }

    private static QValue parseNumber(final String w) {
        Matcher m = TIMESTAMP.matcher(w);
        if (m.matches()) {
            final long day = date(m.group(1));
            return new QValue(-KdbType.TIMESTAMP, day * NS_PER_DAY + clockNanos(m.group(2), m.group(3), m.group(4), m.group(5)));
        }
        m = DATE.matcher(w);
        if (m.matches()) {
            return new QValue(-KdbType.DATE, date(w));
        }
        m = TIMESPAN.matcher(w);
        if (m.matches()) {
            final long days = Long.parseLong(m.group(1));
            final long clock = m.group(2) == null ? 0 : clockNanos(m.group(2), m.group(3), m.group(4), m.group(5));
            return new QValue(-KdbType.TIMESPAN, days * NS_PER_DAY + clock);
        }
        m = CLOCK.matcher(w);
        if (m.matches()) {
            final long ns = clockNanos(m.group(1), m.group(2), m.group(3), m.group(4));
            if (m.group(3) == null) {
                return new QValue(-KdbType.MINUTE, ns / 60_000_000_000L);
            }
            if (m.group(4) == null) {
                return new QValue(-KdbType.SECOND, ns / 1_000_000_000L);
            }
            return m.group(4).length() <= 3 ? new QValue(-KdbType.TIME, ns / 1_000_000L) : new QValue(-KdbType.TIMESPAN, ns);
        }
        if (w.matches("[01]+b")) {
            if (w.length() == 2) {
                return new QValue(-KdbType.BOOLEAN, (long) (w.charAt(0) - '0'));
            }
            final long[] bits = new long[w.length() - 1];
            for (int k = 0; k < bits.length; k++) {
                bits[k] = w.charAt(k) - '0';
            }
            return new QValue(KdbType.BOOLEAN, bits);
        }
        switch (w) {
            case "0N", "0Nj", "0Ni", "0Nh" -> {
                return new QValue(w.endsWith("i") ? -KdbType.INT : w.endsWith("h") ? -KdbType.SHORT : -KdbType.LONG, QValue.NULL_LONG);
            }
            case "0n", "0Nf" -> {
                return new QValue(-KdbType.FLOAT, Double.NaN);
            }
            case "0w" -> {
                return new QValue(-KdbType.FLOAT, Double.POSITIVE_INFINITY);
            }
            case "-0w" -> {
                return new QValue(-KdbType.FLOAT, Double.NEGATIVE_INFINITY);
            }
            default -> {
            }
        }
        final char last = w.charAt(w.length() - 1);
        final boolean suffixed = Character.isLetter(last) && last != 'e' || last == 'e' && w.indexOf('e') == w.length() - 1;
        final String digits = suffixed ? w.substring(0, w.length() - 1) : w;
        final char suffix = digits.length() < w.length() ? last : 0;
        return switch (suffix) {
            case 'j' -> new QValue(-KdbType.LONG, Long.parseLong(digits));
            case 'i' -> new QValue(-KdbType.INT, (long) Integer.parseInt(digits));
            case 'h' -> new QValue(-KdbType.SHORT, (long) Short.parseShort(digits));
            case 'f' -> new QValue(-KdbType.FLOAT, Double.parseDouble(digits));
            case 'e' -> new QValue(-KdbType.REAL, (double) Float.parseFloat(digits));
            case 0 -> digits.contains(".") || digits.contains("e") ? new QValue(-KdbType.FLOAT, Double.parseDouble(digits))
                : new QValue(-KdbType.LONG, Long.parseLong(digits));
            default -> throw new NumberFormatException(w);
        };
    }

    private static long date(final String qDate) {
        return LocalDate.parse(qDate.replace('.', '-')).toEpochDay();
    }

    private static long clockNanos(final String h, final String m, final String s, final String frac) {
        long ns = Long.parseLong(h) * 3_600_000_000_000L;
        ns += m == null ? 0 : Long.parseLong(m) * 60_000_000_000L;
        ns += s == null ? 0 : Long.parseLong(s) * 1_000_000_000L;
        if (frac != null && !frac.isEmpty()) {
            ns += Long.parseLong((frac + "000000000").substring(0, 9));
        }
        return ns;
    }
}
