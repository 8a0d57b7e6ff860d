package io.jtick.core.kdb;

/**
 * What a kdb+ message asks for: a function call, a general list whose first item names the
 * function (a symbol, or a string as javakdb and PyKX send it) and whose other items are its
 * arguments; or a q expression sent as a string, which jtick does not evaluate (it recognises a few
 * by their text). Flyweight: {@link #parse} each message; positions index the reader's buffer.
 */
public final class KdbCall {
    public static final int MAX_ARGUMENTS = 8;

    private final int[] args = new int[MAX_ARGUMENTS];
    private int function = -1;
    private int expression = -1;
    private int argc;

    /**
     * Reads the message's object; false when it is neither a call nor an expression (its position
     * is then {@link KdbReader#body()}). Every argument but the last is checked to lie inside the
     * message; the last is not walked here (an update's data is checked as it is converted, and
     * walking it twice would read every symbol twice).
     */
    public boolean parse(final KdbReader r) {
        function = -1;
        expression = -1;
        argc = 0;
        final int body = r.body();
        final int t = r.type(body);
        if (t == KdbType.CHAR) {
            r.skip(body);
            expression = body;
            return true;
        }
        if (t != KdbType.LIST) {
            return false;
        }
        final int n = r.count(body);
        if (n == 0) {
            return false;
        }
        final int first = KdbReader.values(body);
        final int ft = r.type(first);
        if (ft != -KdbType.SYMBOL && ft != KdbType.CHAR) {
            return false;
        }
        function = first;
        int p = r.skip(first);
        for (int k = 1; k < n; k++) {
            if (argc < MAX_ARGUMENTS) {
                args[argc++] = p;
            } else {
                argc++;
            }
            if (k < n - 1) {
                p = r.skip(p);
            } else {
                r.type(p);
            }
        }
        return true;
    }

    /** Position of the function's name (a symbol or char vector), or -1 for an expression. */
    public int function() {
        return function;
    }

    /** Position of the expression string, or -1 for a call. */
    public int expression() {
        return expression;
    }

    /** Number of arguments of the call. */
    public int argumentCount() {
        return argc;
    }

    /** Position of argument {@code k} (0-based, below {@link #MAX_ARGUMENTS}). */
    public int argument(final int k) {
        return args[k];
    }
}
