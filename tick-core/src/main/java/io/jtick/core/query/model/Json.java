package io.jtick.core.query.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader and writer for query documents (tick-core carries no JSON library).
 * Objects become {@link LinkedHashMap}s in document order (select items keep their order), arrays
 * {@link ArrayList}s, integers {@link Long} (a {@link Double} when they do not fit), other numbers
 * {@link Double}, strings, booleans and {@link #NULL} for {@code null}. Duplicate keys are an error.
 */
public final class Json {
    /** JSON {@code null} (Java null means "absent" in maps). */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private Json(final String text) {
        this.text = text;
    }

    /** Parses one JSON value that must span the whole text (whitespace aside). */
    public static Object parse(final String text) {
        if (text == null) {
            throw QueryException.bad("empty query: expected a JSON object");
        }
        final Json p = new Json(text);
        p.skipSpace();
        if (p.pos == text.length()) {
            throw QueryException.bad("empty query: expected a JSON object");
        }
        final Object v = p.value(0);
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the document");
        }
        return v;
    }

    private QueryException error(final String what) {
        return QueryException.bad("malformed query JSON at offset " + pos + ": " + what);
    }

    private void skipSpace() {
        while (pos < text.length()) {
            final char c = text.charAt(pos);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private Object value(final int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH);
        }
        skipSpace();
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        final char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", NULL);
            default:
                if (c == '-' || c >= '0' && c <= '9') {
                    return number();
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Object literal(final String word, final Object v) {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
        return v;
    }

    private Map<String, Object> object(final int depth) {
        pos++;
        final Map<String, Object> m = new LinkedHashMap<>();
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '}') {
            pos++;
            return m;
        }
        while (true) {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != '"') {
                throw error("expected a string key");
            }
            final String key = string();
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != ':') {
                throw error("expected ':' after key \"" + key + "\"");
            }
            pos++;
            final Object v = value(depth + 1);
            if (m.put(key, v) != null) {
                throw error("duplicate key [key=" + key + "]");
            }
            skipSpace();
            if (pos >= text.length()) {
                throw error("unexpected end in object");
            }
            final char c = text.charAt(pos++);
            if (c == '}') {
                return m;
            }
            if (c != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array(final int depth) {
        pos++;
        final List<Object> l = new ArrayList<>();
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ']') {
            pos++;
            return l;
        }
        while (true) {
            l.add(value(depth + 1));
            skipSpace();
            if (pos >= text.length()) {
                throw error("unexpected end in array");
            }
            final char c = text.charAt(pos++);
            if (c == ']') {
                return l;
            }
            if (c != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder sb = null;
        int start = pos;
        while (pos < text.length()) {
            final char c = text.charAt(pos);
            if (c == '"') {
                final String s = sb == null ? text.substring(start, pos) : sb.append(text, start, pos).toString();
                pos++;
                return s;
            }
            if (c < 0x20) {
                throw error("control character in string");
            }
            if (c == '\\') {
                if (sb == null) {
                    sb = new StringBuilder();
                }
                sb.append(text, start, pos);
                pos++;
                if (pos >= text.length()) {
                    break;
                }
                final char e = text.charAt(pos++);
                switch (e) {
                    case '"':
                    case '\\':
                    case '/':
                        sb.append(e);
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    case 'n':
                        sb.append('\n');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'u':
                        if (pos + 4 > text.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (final NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                        break;
                    default:
                        throw error("bad escape '\\" + e + "'");
                }
                start = pos;
                continue;
            }
            pos++;
        }
        throw error("unterminated string");
    }

    private Object number() {
        final int start = pos;
        if (text.charAt(pos) == '-') {
            pos++;
        }
        boolean integral = true;
        while (pos < text.length()) {
            final char c = text.charAt(pos);
            if (c >= '0' && c <= '9') {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                pos++;
            } else {
                break;
            }
        }
        final String s = text.substring(start, pos);
        if (s.equals("-") || s.startsWith("-.") || s.startsWith(".")) {
            throw error("bad number '" + s + "'");
        }
        try {
            if (integral) {
                try {
                    return Long.parseLong(s);
                } catch (final NumberFormatException tooBig) {
                    return Double.parseDouble(s);
                }
            }
            return Double.parseDouble(s);
        } catch (final NumberFormatException e) {
            throw error("bad number '" + s + "'");
        }
    }

    // ---- writing ------------------------------------------------------------------------------

    /** Writes a tree of maps, lists, strings, numbers, booleans and nulls as JSON text. */
    public static String write(final Object value) {
        final StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(final StringBuilder sb, final Object v) {
        if (v == null || v == NULL) {
            sb.append("null");
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (final Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, l.get(i));
            }
            sb.append(']');
        } else if (v instanceof String s) {
            quote(sb, s);
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            sb.append("null");
        } else {
            sb.append(v);
        }
    }

    /** Appends a JSON string literal. */
    private static void quote(final StringBuilder sb, final String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
