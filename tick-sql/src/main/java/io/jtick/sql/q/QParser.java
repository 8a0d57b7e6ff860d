package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.sql.q.QToken.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses q text into {@link QNode}s: q's right-to-left expressions (no precedence: {@code x op y}
 * takes everything to its right as {@code y}; {@code f x} applies), brackets ({@code f[x;y]},
 * {@code (a;b)}), strands of literals ({@code 09:30 10:00}) and the q-sql templates
 * {@code select}/{@code exec} with {@code [n]}, {@code by}, {@code from} and {@code where}, whose
 * commas separate columns and conditions. Not thread-safe (one per call: {@link #parse}).
 */
public final class QParser {
    /** Words q uses between two arguments. */
    static final Set<String> INFIX = Set.of("wavg", "wsum", "xbar", "within", "in", "like", "xasc", "xdesc", "xkey", "xcol", "xcols",
        "and", "or", "except", "inter", "union", "sublist", "cross", "lj", "ij", "uj", "pj", "ej", "bin", "binr", "div", "mod", "xexp",
        "xlog", "ss", "sv", "vs", "mavg", "msum", "mmax", "mmin", "mcount", "mdev", "xprev", "ema", "cor", "cov", "scov", "wj",
        "fby", "rotate", "set", "upsert", "insert", "each", "over", "scan", "prior", "peach", "cut", "dsave");
    private static final Set<String> SELECT_STOPS = Set.of("by", "from");
    private static final Set<String> FROM_STOPS = Set.of("where");
    private static final Set<String> NONE = Set.of();

    private final List<QToken> tokens;
    private int at;

    private QParser(final List<QToken> tokens) {
        this.tokens = tokens;
    }

    /** One q expression; {@code 'parse} when text is left over. */
    public static QNode parse(final String text) {
        final QParser p = new QParser(QLexer.lex(text));
        final QNode n = p.expr(false, NONE);
        if (p.peek().kind() != Kind.END) {
            throw QException.parse("unexpected " + (p.peek().text().isEmpty() ? p.peek().kind() : p.peek().text()) + " [text="
                + abbreviate(text) + "]");
        }
        return n;
    }

    /**
     * q's clock, read when the text is parsed, as a literal: {@code .z.p} (timestamp), {@code .z.d} (date),
     * {@code .z.t} (time), {@code .z.n} (timespan) in UTC, and {@code .z.P}, {@code .z.D}, {@code .z.T},
     * {@code .z.N} in this machine's time zone, as q gives them. Null for any other name.
     */
    static QValue clock(final String name) {
        if (name.length() != 4 || !name.startsWith(".z.") || "pdtnPDTN".indexOf(name.charAt(3)) < 0) {
            return null;
        }
        final java.time.Instant now = java.time.Instant.now();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        final char c = name.charAt(3);
        if (Character.isUpperCase(c)) {
            nanos += java.time.ZoneId.systemDefault().getRules().getOffset(now).getTotalSeconds() * 1_000_000_000L;
        }
        final long day = 86_400_000_000_000L;
        return switch (Character.toLowerCase(c)) {
            case 'p' -> new QValue(-KdbType.TIMESTAMP, nanos);
            case 'd' -> new QValue(-KdbType.DATE, Math.floorDiv(nanos, day));
            case 't' -> new QValue(-KdbType.TIME, Math.floorMod(nanos, day) / 1_000_000L);
            default -> new QValue(-KdbType.TIMESPAN, Math.floorMod(nanos, day));
        };
    }

    public static String abbreviate(final String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    private QToken peek() {
        return tokens.get(at);
    }

    private QToken next() {
        return tokens.get(at++);
    }

    private boolean atStop(final boolean commas, final Set<String> words) {
        final QToken t = peek();
        return switch (t.kind()) {
            case END, SEMI, RPAREN, RBRACKET -> true;
            case OP -> commas && t.text().equals(",");
            case NAME -> words.contains(t.text());
            default -> false;
        };
    }

    private QNode expr(final boolean commas, final Set<String> words) {
        if (atStop(commas, words)) {
            throw QException.parse("expression expected before " + (peek().text().isEmpty() ? "the end" : peek().text()));
        }
        final QNode left = noun(commas, words);
        if (atStop(commas, words)) {
            return left;
        }
        final QToken t = peek();
        if (t.kind() == Kind.OP || t.kind() == Kind.NAME && INFIX.contains(t.text())) {
            next();
            if (t.kind() == Kind.OP && (t.text().equals("/") || t.text().equals("\\") || t.text().equals("'"))) {
                throw QException.nyi("adverb " + t.text());
            }
            return new QNode.Dyad(t.text(), left, expr(commas, words));
        }
        if (t.kind() == Kind.COLON) {
            throw QException.nyi("assignment " + left + ":");
        }
        return new QNode.Apply(left, List.of(expr(commas, words)));
    }

    /** A noun with its bracket applications: literal (strand), name, (...), select, or an operator applied with brackets. */
    private QNode noun(final boolean commas, final Set<String> words) {
        final QToken t = next();
        QNode n;
        switch (t.kind()) {
            case LITERAL -> n = strand(t);
            case NAME -> {
                if (t.text().equals("select") || t.text().equals("exec")) {
                    return select(t.text().equals("exec"), commas, words);
                }
                if (t.text().equals("update") || t.text().equals("delete")) {
                    throw QException.nyi(t.text() + " (this port reads: select, exec)");
                }
                final QValue now = clock(t.text());
                n = now == null ? new QNode.Name(t.text()) : new QNode.Lit(now);
            }
            case LPAREN -> n = parenthesised();
            case OP -> {
                if (peek().kind() != Kind.LBRACKET) {
                    throw QException.nyi("monadic " + t.text());
                }
                n = new QNode.Name(t.text());
            }
            default -> throw QException.parse("unexpected " + (t.text().isEmpty() ? "end" : t.text()));
        }
        while (peek().kind() == Kind.LBRACKET) {
            next();
            n = new QNode.Apply(n, arguments());
        }
        return n;
    }

    /** The items between {@code [} (taken) and {@code ]}, split at {@code ;}; {@code f[]} has none. */
    private List<QNode> arguments() {
        final List<QNode> args = new ArrayList<>();
        if (peek().kind() == Kind.RBRACKET) {
            next();
            return args;
        }
        while (true) {
            args.add(peek().kind() == Kind.SEMI || peek().kind() == Kind.RBRACKET ? new QNode.Name("::") : expr(false, NONE));
            final QToken t = next();
            if (t.kind() == Kind.RBRACKET) {
                return args;
            }
            if (t.kind() != Kind.SEMI) {
                throw QException.parse("expected ; or ] [got=" + t.text() + "]");
            }
        }
    }

    private QNode parenthesised() {
        if (peek().kind() == Kind.RPAREN) {
            next();
            return new QNode.Items(List.of());
        }
        final List<QNode> items = new ArrayList<>();
        while (true) {
            items.add(expr(false, NONE));
            final QToken t = next();
            if (t.kind() == Kind.RPAREN) {
                return items.size() == 1 ? items.get(0) : new QNode.Items(items);
            }
            if (t.kind() != Kind.SEMI) {
                throw QException.parse("expected ; or ) [got=" + (t.text().isEmpty() ? "end" : t.text()) + "]");
            }
        }
    }

    /** A literal and the literals juxtaposed after it, as one vector ({@code 1 2 3}, {@code 09:30 10:00}, {@code `a `b}). */
    private QNode strand(final QToken first) {
        if (peek().kind() != Kind.LITERAL || !first.value().atom()) {
            return new QNode.Lit(first.value());
        }
        final List<QToken> strand = new ArrayList<>();
        strand.add(first);
        while (peek().kind() == Kind.LITERAL && peek().value().atom() && peek().spaced()) {
            strand.add(next());
        }
        // q: a type suffix on the last number types the whole strand (10 20i is an int vector)
        final String lastText = strand.get(strand.size() - 1).text();
        final char suffix = lastText.charAt(lastText.length() - 1);
        final boolean typed = strand.size() > 1 && "ijhef".indexOf(suffix) >= 0 && lastText.matches("-?[0-9]+(\\.[0-9]*)?[ijhef]");
        final List<QValue> items = new ArrayList<>(strand.size());
        for (final QToken t : strand) {
            items.add(typed && t.text().matches("-?[0-9]+(\\.[0-9]*)?") ? QLexer.number(t.text() + suffix) : t.value());
        }
        return new QNode.Lit(vector(items));
    }

    /** Atoms as one vector: all of one type, or longs and floats (a float vector); else a general list. */
    static QValue vector(final List<QValue> items) {
        int type = items.get(0).type();
        for (final QValue v : items) {
            if (v.type() != type) {
                final boolean numeric = (v.type() == -KdbType.FLOAT || v.type() == -KdbType.LONG)
                    && (type == -KdbType.FLOAT || type == -KdbType.LONG);
                type = numeric ? -KdbType.FLOAT : 0;
            }
        }
        if (type == 0) {
            return new QValue(0, List.copyOf(items));
        }
        final int n = items.size();
        if (type == -KdbType.SYMBOL) {
            final String[] s = new String[n];
            for (int i = 0; i < n; i++) {
                s[i] = (String) items.get(i).data();
            }
            return new QValue(KdbType.SYMBOL, s);
        }
        if (type == -KdbType.FLOAT || type == -KdbType.REAL) {
            final double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = items.get(i).data() instanceof Long l ? l : (Double) items.get(i).data();
            }
            return new QValue(-type, d);
        }
        if (type == -KdbType.CHAR) {
            final StringBuilder sb = new StringBuilder();
            for (final QValue v : items) {
                sb.append((char) v.longValue());
            }
            return QValue.chars(sb.toString());
        }
        final long[] l = new long[n];
        for (int i = 0; i < n; i++) {
            l[i] = items.get(i).longValue();
        }
        return new QValue(-type, l);
    }

    private QNode select(final boolean exec, final boolean outerCommas, final Set<String> outerWords) {
        QNode limit = null;
        if (peek().kind() == Kind.LBRACKET && !peek().spaced()) {
            next();
            final List<QNode> args = arguments();
            if (args.size() != 1) {
                throw QException.nyi("select[n;order] (select[n] and n# run)");
            }
            limit = args.get(0);
        }
        final List<QNode.Col> columns = new ArrayList<>();
        if (!peek().isName("by") && !peek().isName("from")) {
            columns.addAll(columns(SELECT_STOPS));
        }
        List<QNode.Col> by = null;
        if (peek().isName("by")) {
            next();
            by = columns(Set.of("from"));
        }
        if (!peek().isName("from")) {
            throw QException.parse("select without from");
        }
        next();
        final QNode from = expr(true, FROM_STOPS);
        final List<QNode> where = new ArrayList<>();
        if (peek().isName("where")) {
            next();
            while (true) {
                where.add(expr(true, NONE));
                if (!peek().is(Kind.OP, ",")) {
                    break;
                }
                next();
            }
        }
        if (!atStop(outerCommas, outerWords)) {
            throw QException.parse("unexpected " + peek().text() + " after " + (exec ? "exec" : "select"));
        }
        return new QNode.Select(exec, limit, columns, by, from, where);
    }

    private List<QNode.Col> columns(final Set<String> stops) {
        final List<QNode.Col> out = new ArrayList<>();
        while (true) {
            String name = null;
            if (peek().kind() == Kind.NAME && tokens.get(at + 1).kind() == Kind.COLON) {
                name = next().text();
                next();
            }
            out.add(new QNode.Col(name, expr(true, stops)));
            if (!peek().is(Kind.OP, ",")) {
                return out;
            }
            next();
        }
    }
}
