package io.jtick.core.rdb;

import java.util.Arrays;

/**
 * The sym index ({@code g#}): for each symbol id, the ascending row numbers that hold it, so a
 * one-sym query visits only its own rows. Primitive arrays, grown by doubling; one writer.
 *
 * <p>Publication: the writer appends rows before the table publishes its row count; a reader that
 * read the count {@code n} first sees at least the postings of rows {@code < n}. Arrays replaced
 * on growth go through volatile stores so a reader that sees a newer array sees its contents.
 * Readers stop at the first row {@code >= n} (or any non-ascending value) and so never read past
 * what was published.
 */
final class SymIndex {
    private static final int INITIAL_POSTINGS = 16;

    /** One symbol's rows. */
    static final class Postings {
        volatile int[] rows = new int[INITIAL_POSTINGS];
        int count;
    }

    private volatile Postings[] bySym;

    SymIndex(final int expectedSyms) {
        bySym = new Postings[Math.max(16, expectedSyms)];
    }

    /** Writer: records rows {@code from..to-1} whose sym ids are {@code syms[from..to-1]}. */
    void add(final int[] syms, final int from, final int to) {
        Postings[] lists = bySym;
        for (int row = from; row < to; row++) {
            final int sym = syms[row];
            if (sym >= lists.length) {
                lists = grow(lists, sym);
            }
            Postings p = lists[sym];
            if (p == null) {
                p = new Postings();
                lists[sym] = p;
            }
            int[] rows = p.rows;
            final int c = p.count;
            if (c == rows.length) {
                rows = Arrays.copyOf(rows, c << 1);
                p.rows = rows;
            }
            rows[c] = row;
            p.count = c + 1;
        }
    }

    private Postings[] grow(final Postings[] lists, final int sym) {
        int cap = lists.length;
        while (cap <= sym) {
            cap <<= 1;
        }
        final Postings[] bigger = Arrays.copyOf(lists, cap);
        bySym = bigger;
        return bigger;
    }

    /**
     * Reader: the postings of a symbol, or null when it has none. Read {@code rows} before
     * {@code count}, cap the count by the array length and stop at the first row that is not below
     * the published row count or not ascending.
     */
    Postings postings(final int sym) {
        final Postings[] lists = bySym;
        return sym >= 0 && sym < lists.length ? lists[sym] : null;
    }
}
