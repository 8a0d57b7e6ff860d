package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbTextCall;
import io.jtick.core.kdb.KdbType;
import io.jtick.sql.q.QException;
import io.jtick.sql.q.QNode;
import io.jtick.sql.q.QParser;
import io.jtick.sql.q.QValue;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * The tickerplant's reading of a call sent as q text (kdb-tick feed.q's {@code h"(.u.upd[`trade;(...)])"},
 * sync or async): the text goes through the q front end's own parser ({@link QParser}) and, when it is one
 * call of a named function whose arguments are all literals, is written as the list a client would have
 * sent, {@code (`.u.upd;`trade;(...))}, which the tickerplant then handles as that list. Literals are
 * q's: symbols, numbers with their type suffixes, timestamps, timespans, dates, strings, vectors written
 * by juxtaposition ({@code `IBM`MSFT}, {@code 187.25 300.5}), general lists {@code (a;b;c)} (one row of
 * atoms or a list of columns, kept as a general list) and {@code enlist x}. Anything else (a name, an
 * operator, a select) is refused with {@code 'nyi} naming it: the tickerplant evaluates no q.
 */
public final class QTextCall implements KdbTextCall {
    @Override
    public void write(final String text, final ByteBuf out) {
        final QValue list;
        try {
            list = call(QParser.parse(text), text);
        } catch (final QException e) {
            throw new Refused(e.getMessage());
        }
        KdbValueWriter.write(out, list);
    }

    /** {@code f[a;b]} (or {@code f a}) as the general list {@code (`f;a;b)}. */
    static QValue call(final QNode node, final String text) {
        if (!(node instanceof QNode.Apply apply) || !(apply.function() instanceof QNode.Name f) || !f.name().startsWith(".")
            && !Character.isLetter(f.name().charAt(0))) {
            throw QException.nyi("q expression " + QParser.abbreviate(text)
                + " (the tickerplant takes one call with literal arguments, as .u.upd[`trade;(...)])");
        }
        final List<QValue> items = new ArrayList<>(apply.args().size() + 1);
        items.add(QValue.symbol(f.name()));
        for (final QNode a : apply.args()) {
            items.add(literal(a));
        }
        return new QValue(0, items);
    }

    private static QValue literal(final QNode node) {
        if (node instanceof QNode.Lit lit) {
            return lit.value();
        }
        if (node instanceof QNode.Items list) {
            final List<QValue> items = new ArrayList<>(list.items().size());
            for (final QNode n : list.items()) {
                items.add(literal(n));
            }
            return new QValue(0, items);
        }
        if (node instanceof QNode.Apply a && a.function() instanceof QNode.Name f && f.name().equals("enlist") && a.args().size() == 1) {
            return enlist(literal(a.args().get(0)));
        }
        throw QException.nyi("argument " + node + " (only literals: the tickerplant evaluates no q)");
    }

    /** q's {@code enlist}: an atom becomes a one-item vector, anything else a one-item general list. */
    private static QValue enlist(final QValue v) {
        if (!v.atom()) {
            return new QValue(0, List.of(v));
        }
        if (v.type() == -KdbType.SYMBOL) {
            return new QValue(KdbType.SYMBOL, new String[] {v.text()});
        }
        if (v.type() == -KdbType.CHAR) {
            return QValue.chars(String.valueOf((char) v.longValue()));
        }
        if (v.data() instanceof Double d) {
            return new QValue(-v.type(), new double[] {d});
        }
        return new QValue(-v.type(), new long[] {v.longValue()});
    }
}
