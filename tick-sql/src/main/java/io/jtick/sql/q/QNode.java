package io.jtick.sql.q;

import java.util.List;

/** q parsed: what {@link QParser} makes of text and {@link QCompiler} compiles. */
public sealed interface QNode {
    /** A literal (atom, vector, symbol). */
    record Lit(QValue value) implements QNode {
        @Override
        public String toString() {
            return value.toString();
        }
    }

    /** A name: a table, a column ({@code time.minute}), a function ({@code sum}), {@code .z.p}. */
    record Name(String name) implements QNode {
        @Override
        public String toString() {
            return name;
        }
    }

    /** {@code f[x;y]} or {@code f x}. */
    record Apply(QNode function, List<QNode> args) implements QNode {
        @Override
        public String toString() {
            return function + "[" + String.join(";", args.stream().map(String::valueOf).toList()) + "]";
        }
    }

    /** {@code x op y}: an operator or an infix word ({@code wavg}, {@code xbar}, {@code within}). */
    record Dyad(String op, QNode left, QNode right) implements QNode {
        @Override
        public String toString() {
            return left + (Character.isLetter(op.charAt(0)) ? " " + op + " " : op) + right;
        }
    }

    /** {@code (a;b;c)}. */
    record Items(List<QNode> items) implements QNode {
        @Override
        public String toString() {
            return "(" + String.join(";", items.stream().map(String::valueOf).toList()) + ")";
        }
    }

    /** One column of a select: {@code name:expr}, or an expression q names itself. */
    record Col(String name, QNode expr) {
        @Override
        public String toString() {
            return name == null ? String.valueOf(expr) : name + ":" + expr;
        }
    }

    /**
     * {@code select[n] cols by keys from t where c1, c2} (or {@code exec}).
     *
     * @param by null when there is no {@code by}; empty for... never (q's {@code by} names at least one key)
     */
    record Select(boolean exec, QNode limit, List<Col> columns, List<Col> by, QNode from, List<QNode> where) implements QNode {
        @Override
        public String toString() {
            return (exec ? "exec" : "select") + (limit == null ? "" : "[" + limit + "]") + " " + columns
                + (by == null ? "" : " by " + by) + " from " + from + (where.isEmpty() ? "" : " where " + where);
        }
    }
}
