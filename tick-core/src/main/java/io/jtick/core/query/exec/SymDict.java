package io.jtick.core.query.exec;

import io.jtick.core.table.TableSegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Query-wide symbol ids, so that group keys from segments with different local ids agree. Thread-safe. */
final class SymDict {
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> names = new ArrayList<>();

    synchronized int id(final String name) {
        final Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        final int n = names.size();
        ids.put(name, n);
        names.add(name);
        return n;
    }

    synchronized String name(final int id) {
        return names.get(id);
    }

    /** A sym id map (an int per id) grown to hold {@code id}, at least doubled, the new slots {@code empty}. */
    static int[] grown(final int[] map, final int id, final int empty) {
        final int old = map.length;
        final int[] m = Arrays.copyOf(map, Math.max(id + 1, Math.max(64, old << 1)));
        Arrays.fill(m, old, m.length, empty);
        return m;
    }

    /**
     * Per thread, for the segment last bound: local sym id → query-wide id, filled on first sight.
     */
    static final class LocalMap {
        private final SymDict dict;
        private TableSegment seg;
        private int[] map = new int[0];

        LocalMap(final SymDict dict) {
            this.dict = dict;
        }

        void bind(final TableSegment segment) {
            if (segment != seg) {
                seg = segment;
                Arrays.fill(map, -1);
            }
        }

        int global(final int local) {
            if (local >= map.length) {
                map = grown(map, local, -1);
            }
            int g = map[local];
            if (g < 0) {
                g = dict.id(seg.symName(local));
                map[local] = g;
            }
            return g;
        }
    }
}
