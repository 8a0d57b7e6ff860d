package io.jtick.core.tp;

import io.jtick.core.table.SymbolTable;

import java.util.List;
import java.util.SortedSet;

/**
 * A subscription's sym list as a bit set over the tickerplant's symbol ids. Subscribers with the
 * same list share one instance, so a filtered update is built once per distinct list.
 */
final class SymFilter {
    private final SortedSet<String> syms;
    private long[] bits = new long[4];

    SymFilter(final SortedSet<String> syms, final SymbolTable table) {
        this.syms = syms;
        for (final String s : syms) {
            final int id = table.intern(s);
            if ((id >> 6) >= bits.length) {
                bits = java.util.Arrays.copyOf(bits, Math.max(bits.length * 2, (id >> 6) + 1));
            }
            bits[id >> 6] |= 1L << id;
        }
    }

    boolean contains(final int id) {
        return id >= 0 && (id >> 6) < bits.length && (bits[id >> 6] & (1L << id)) != 0;
    }

    SortedSet<String> syms() {
        return syms;
    }

    List<String> symList() {
        return List.copyOf(syms);
    }
}
