package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;

import java.util.ArrayList;
import java.util.List;

/**
 * Functional selects as PyKX's {@code qsql.select}/{@code qsql.exec} send them: the general list
 * {@code ("{[tab;x;y;z]?[tab;value x;value y;value z]}"; t; where; by; columns)}, each clause a
 * dictionary or a {@code (lambda; data)} pair whose lambda is one of the few PyKX writes
 * ({@code {x}}, {@code {parse each x}}, {@code {x!y}}, {@code {x!x}enlist@} and the dictionary of
 * {@code (kind; value)} entries: 0 a column, 1 q text to parse). Each piece of q text goes through
 * {@link QParser}, and the whole becomes the {@link QNode.Select} q-sql text would have given:
 * {@code by} as {@code ()} is an exec, {@code 0b} a select without by. Anything else: {@code 'nyi}.
 */
public final class QFunctional {
    private QFunctional() {
    }

    /** True when {@code message} (a general list) starts with PyKX's functional-select lambda. */
    public static boolean isSelect(final QValue message) {
        if (message.type() != 0 || message.count() != 5 || message.item(0).type() != KdbType.CHAR) {
            return false;
        }
        final String f = message.item(0).text().replaceAll("\\s+", "");
        return f.startsWith("{[tab;x;y;z]?[") && f.endsWith("]}");
    }

    /** PyKX's functional select as a q-sql select. */
    public static QNode.Select select(final QValue message) {
        final String table = text(message.item(1), "table");
        final List<QNode> where = where(message.item(2));
        final QValue by = message.item(3);
        final boolean exec = by.type() == 0 && by.count() == 0 || pair(by) && by.item(1).type() == 0 && by.item(1).count() == 0;
        final boolean noBy = exec || by.type() == -KdbType.BOOLEAN && by.longValue() == 0
            || pair(by) && by.item(1).type() == -KdbType.BOOLEAN && by.item(1).longValue() == 0;
        final List<QNode.Col> byCols = noBy ? null : columns(by, "by");
        final List<QNode.Col> cols = columns(message.item(4), "columns");
        return new QNode.Select(exec, null, cols, byCols, new QNode.Name(table), where);
    }

    private static boolean pair(final QValue v) {
        return v.type() == 0 && v.count() >= 2 && v.item(0).type() == KdbType.CHAR;
    }

    private static String lambda(final QValue pair) {
        return pair.item(0).text().replaceAll("\\s+", "");
    }

    private static String text(final QValue v, final String what) {
        if (v.type() == -KdbType.SYMBOL || v.type() == KdbType.CHAR) {
            return v.text();
        }
        throw QException.type("functional select: " + what + " expected a symbol or a string [got=" + KdbType.name(v.type()) + "]");
    }

    private static List<QNode> where(final QValue w) {
        final List<QNode> out = new ArrayList<>();
        if (w.type() == 0 && w.count() == 0) {
            return out;
        }
        if (pair(w)) {
            final String f = lambda(w);
            final QValue data = w.item(1);
            if (f.equals("{x}") && data.type() == 0 && data.count() == 0) {
                return out;
            }
            if (f.equals("{parseeachx}")) {
                for (int i = 0; i < data.count(); i++) {
                    final QValue s = data.type() == KdbType.CHAR ? data : data.item(i);
                    out.add(QParser.parse(text(s, "where")));
                    if (data.type() == KdbType.CHAR) {
                        break;
                    }
                }
                return out;
            }
        }
        throw QException.nyi("functional select with a where given as parse trees (give where as q text: where=['sym=`IBM'])");
    }

    private static List<QNode.Col> columns(final QValue c, final String what) {
        final List<QNode.Col> out = new ArrayList<>();
        if (c.type() == 0 && c.count() == 0) {
            return out;
        }
        if (pair(c)) {
            final String f = lambda(c);
            final QValue data = c.item(1);
            if (f.equals("{x}") && data.type() == 0 && data.count() == 0) {
                return out;
            }
            if (f.equals("{x}") && data.isSymbol()) {
                for (int i = 0; i < data.count(); i++) {
                    out.add(new QNode.Col(null, new QNode.Name(data.item(i).text())));
                }
                return out;
            }
            if (f.equals("{x!x}enlist@")) {
                final String name = text(data, what);
                out.add(new QNode.Col(name, new QNode.Name(name)));
                return out;
            }
            if (f.startsWith("{key[x]!") && data.type() == KdbType.DICT) {
                final QValue[] kv = QValues.parts(data);
                for (int i = 0; i < kv[0].count(); i++) {
                    out.add(new QNode.Col(kv[0].item(i).text(), entry(kv[1].item(i), what)));
                }
                return out;
            }
            if (f.equals("{x!y}") && c.count() == 3) {
                for (int i = 0; i < c.item(1).count(); i++) {
                    out.add(new QNode.Col(c.item(1).item(i).text(), tree(c.item(2).item(i), what)));
                }
                return out;
            }
        }
        if (c.type() == KdbType.DICT) {
            final QValue[] kv = QValues.parts(c);
            for (int i = 0; i < kv[0].count(); i++) {
                out.add(new QNode.Col(kv[0].item(i).text(), tree(kv[1].item(i), what)));
            }
            return out;
        }
        throw QException.nyi("functional select " + what + " of this shape [" + c + "] (give columns and by as q text: "
            + "columns={'n': 'count i'}, by={'sym': 'sym'})");
    }

    /** One {@code (kind; value)} entry of PyKX's column dictionary: 0 a column name or literal, 1 q text. */
    private static QNode entry(final QValue e, final String what) {
        if (e.type() != 0 || e.count() != 2) {
            throw QException.nyi("functional select " + what + " entry [" + e + "]");
        }
        final long kind = e.item(0).longValue();
        if (kind == 1) {
            return QParser.parse(text(e.item(1), what));
        }
        if (kind == 0) {
            return tree(e.item(1), what);
        }
        throw QException.nyi("functional select " + what + " given as a parse tree to evaluate (give it as q text)");
    }

    /** A parse tree that is a column name (a symbol); anything else is nyi. */
    private static QNode tree(final QValue t, final String what) {
        if (t.type() == -KdbType.SYMBOL) {
            return new QNode.Name(t.text());
        }
        throw QException.nyi("functional select " + what + " given as a parse tree [" + t + "] (give it as q text)");
    }
}
