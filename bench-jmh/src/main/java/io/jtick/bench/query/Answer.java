package io.jtick.bench.query;

import java.util.ArrayList;
import java.util.List;

/**
 * A result in a form the three systems can be compared in: rows of Long (integers, timestamps in
 * epoch microseconds), Double, String (syms, chars) or null (no match; NaN counts as null).
 * Doubles are equal within a relative 1e-9: sums run in different orders (and in parallel) in
 * each system.
 */
public final class Answer {
    private final List<Object[]> rows = new ArrayList<>();

    public void add(final Object... row) {
        for (int i = 0; i < row.length; i++) {
            if (row[i] instanceof Double d && d.isNaN()) {
                row[i] = null;
            }
        }
        rows.add(row);
    }

    public int size() {
        return rows.size();
    }

    /** Null when equal, else what differs first. */
    public String difference(final Answer other) {
        if (rows.size() != other.rows.size()) {
            return "row count " + rows.size() + " vs " + other.rows.size() + (rows.isEmpty() ? "" : "; first row "
                + List.of(rows.get(0)) + (other.rows.isEmpty() ? "" : " vs " + List.of(other.rows.get(0))));
        }
        for (int r = 0; r < rows.size(); r++) {
            final Object[] a = rows.get(r);
            final Object[] b = other.rows.get(r);
            if (a.length != b.length) {
                return "row " + r + " has " + a.length + " vs " + b.length + " values";
            }
            for (int c = 0; c < a.length; c++) {
                if (!same(a[c], b[c])) {
                    return "row " + r + " column " + c + ": " + a[c] + " vs " + b[c] + " (rows " + java.util.Arrays.asList(a)
                        + " vs " + java.util.Arrays.asList(b) + ")";
                }
            }
        }
        return null;
    }

    private static boolean same(final Object x, final Object y) {
        if (x == null || y == null) {
            return x == y;
        }
        if (x instanceof Double a && y instanceof Double b) {
            return Math.abs(a - b) <= 1e-9 * Math.max(1.0, Math.max(Math.abs(a), Math.abs(b)));
        }
        if (x instanceof Number a && y instanceof Number b && !(x instanceof Double) && !(y instanceof Double)) {
            return a.longValue() == b.longValue();
        }
        return x.equals(y);
    }

    @Override
    public String toString() {
        final StringBuilder sb = new StringBuilder(rows.size() + " rows");
        for (int i = 0; i < Math.min(3, rows.size()); i++) {
            sb.append(' ').append(List.of(rows.get(i)));
        }
        return sb.toString();
    }
}
