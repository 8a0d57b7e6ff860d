package io.jtick.core.query.model;

import java.util.List;

/**
 * A parsed query document (see {@code docs/query.md}), checked for shape but not yet bound to a
 * table: the planner ({@code query.plan}) does that. Built by {@link QueryParser}.
 *
 * @param table   table name
 * @param dates   dates to read (HDB partitions), or null for all
 * @param where   conditions, all of which must hold
 * @param whereJson the conditions in document form, for sources that push them down
 * @param select  output items; empty means every column of the table (row query)
 * @param by      group keys; empty for none
 * @param asof    as-of join, or null
 * @param orderBy result order; empty for the natural order
 * @param limit   at most this many result rows; 0 for no limit
 */
public record Query(String table, Dates dates, List<Cond> where, Object whereJson, List<Item> select, List<Item> by, AsOf asof,
             List<Order> orderBy, long limit) {

    /** Days to read, inclusive, optionally restricted to a set. */
    public record Dates(int from, int to, int[] set) {
        public boolean contains(final int day) {
            if (day < from || day > to) {
                return false;
            }
            if (set == null) {
                return true;
            }
            return java.util.Arrays.binarySearch(set, day) >= 0;
        }
    }

    /** A named output or key expression. */
    public record Item(String name, Node expr) {
    }

    /** A condition {@code column op values}. */
    public record Cond(String column, Op op, List<Object> values) {
    }

    public enum Op {
        EQ("="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">="), IN("in"), WITHIN("within");

        private final String symbol;

        Op(final String symbol) {
            this.symbol = symbol;
        }

        /** The operator as a document writes it. */
        public String symbol() {
            return symbol;
        }
    }

    /**
     * As-of join ({@code aj[`sym`time; t; q]}): for each row, the last row of {@code table} with the
     * same sym and a time at or before it, its columns added under the given names.
     *
     * @param table     the right table
     * @param columns   right columns to add
     * @param names     their names in the result (aliases)
     * @param tolerance match only quotes at most this many ns older; -1 for no limit
     */
    public record AsOf(String table, List<String> columns, List<String> names, long tolerance) {
    }

    public record Order(String column, boolean desc) {
    }

    /** Expression nodes. */
    public sealed interface Node permits Col, Num, Arith, XBar, Agg {
    }

    /** A column by name. */
    public record Col(String name) implements Node {
    }

    /** A number literal. */
    public record Num(double value, long longValue, boolean integral) implements Node {
    }

    /** {@code left op right}, op one of + - * /. */
    public record Arith(char op, Node left, Node right) implements Node {
    }

    /** {@code size xbar arg}; size is a raw literal (duration for timestamps). */
    public record XBar(Object size, Node arg) implements Node {
    }

    /** An aggregate; no args for {@code count *}. */
    public record Agg(AggKind kind, List<Node> args) implements Node {
    }

    public enum AggKind {
        COUNT, SUM, AVG, MIN, MAX, FIRST, LAST, WAVG, MEDIAN, DEV;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
