package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.KeySpec;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;

import java.util.Arrays;

/**
 * Group-by state of one scan: a hash table from key tuples (longs: query-wide sym ids, timestamps,
 * integers, float bits, dates) to dense group numbers, and one {@link Accumulator} per aggregate. Grouping
 * by sym alone, or by sym and {@code date} (constant within a segment), skips the hash: local sym id
 * → group through an array reset per segment. With no keys there is one group (so {@code count} of
 * nothing is 0).
 */
final class Groups {
    private final long maxGroups;
    private final int k;
    private final Ev[] keyEvs;
    private final int[] keySymSlot;
    final Accumulator[] accs;
    private final SymDict.LocalMap localSyms;
    /** Keys are one sym plus only {@code date}s: the group follows from the local sym id within a segment. */
    private final boolean symOnly;
    private final int symAt;
    private final long[] symTuple;

    int size;
    long[] keys;
    private int[] table;
    private int mask;
    private final int[] gid;
    private final long[][] keyVals;
    private int[] localToGroup = new int[0];
    /** Keyed by sym alone: query-wide sym id → group (-1: none yet), instead of the hash table. */
    private int[] symToGroup = new int[0];
    private TableSegment bound;

    /** {@code localSyms}: the scanning thread's map, kept across the slices it scans (one lookup per sym and segment). */
    Groups(final Plan plan, final int capacity, final SymDict.LocalMap localSyms, final long maxGroups) {
        this.maxGroups = maxGroups;
        this.localSyms = localSyms;
        this.k = plan.keys().size();
        keyEvs = new Ev[k];
        keySymSlot = new int[k];
        for (int i = 0; i < k; i++) {
            final KeySpec ks = plan.keys().get(i);
            keySymSlot[i] = ks.symColumn() ? TableSchema.SYM : -1;
            keyEvs[i] = Ev.of(ks.expr(), capacity);
        }
        int at = -1;
        boolean others = true;
        for (int i = 0; i < k; i++) {
            if (keySymSlot[i] >= 0 && at < 0) {
                at = i;
            } else if (!(plan.keys().get(i).expr() instanceof Plan.DateSpec)) {
                others = false;
            }
        }
        symAt = at;
        symOnly = at >= 0 && others;
        symTuple = new long[k];
        accs = new Accumulator[plan.aggs().size()];
        for (int i = 0; i < accs.length; i++) {
            accs[i] = Accumulator.of(plan.aggs().get(i), capacity, localSyms);
        }
        gid = new int[capacity];
        keyVals = new long[k][capacity];
        keys = new long[Math.max(1, k) * 16];
        table = new int[64];
        mask = 63;
        if (k == 0) {
            newGroup(new long[0], 0);
        }
    }

    /** Before the first batch of a segment. */
    void bind(final TableSegment segment) {
        if (segment != bound) {
            bound = segment;
            localSyms.bind(segment);
            Arrays.fill(localToGroup, -1);
        }
    }

    void add(final Batch b) {
        final int count = b.count;
        final int[] sel = b.sel;
        int runs = 1;
        if (k == 0) {
            Arrays.fill(gid, 0, count, 0);
        } else if (symOnly && b.sym >= 0) {
            // one sym's rows (a p# range or a g# list): one group, the sym column is not read
            final int local = b.sym;
            if (local >= localToGroup.length) {
                growLocal(local);
            }
            int g = localToGroup[local];
            if (g < 0) {
                g = groupOfSym(localSyms.global(local));
                localToGroup[local] = g;
            }
            Arrays.fill(gid, 0, count, g);
        } else if (symOnly) {
            b.load(TableSchema.SYM);
            final int[] s = b.s[TableSchema.SYM];
            final int o = b.off[TableSchema.SYM];
            if (localToGroup.length < bound.symIdLimit()) {
                growLocal(bound.symIdLimit() - 1);
            }
            // local ids are below symIdLimit(); a sym not yet seen maps to -1, so one pass without a
            // branch, then a second over the rows only when the first met a new sym
            final int[] map = localToGroup;
            int seen = 0;
            if (sel == null) {
                for (int i = 0; i < count; i++) {
                    final int g = map[s[o + i]];
                    gid[i] = g;
                    seen |= g;
                }
            } else {
                for (int i = 0; i < count; i++) {
                    final int g = map[s[o + sel[i]]];
                    gid[i] = g;
                    seen |= g;
                }
            }
            if (seen < 0) {
                // every row again, not only those the first pass left at -1: a test of gid[i] here would take one way
                // only until a batch mixes known and new syms (the compiled code then threw itself away on a user's
                // first query); this branch takes both ways in any batch with more rows than new syms
                for (int i = 0; i < count; i++) {
                    final int local = s[o + (sel == null ? i : sel[i])];
                    int g = map[local];
                    if (g < 0) {
                        g = groupOfSym(localSyms.global(local));
                        map[local] = g;
                    }
                    gid[i] = g;
                }
            }
            runs = runs(count);
        } else {
            for (int j = 0; j < k; j++) {
                final long[] out = keyVals[j];
                if (keySymSlot[j] >= 0) {
                    b.load(TableSchema.SYM);
                    final int[] s = b.s[TableSchema.SYM];
                    final int o = b.off[TableSchema.SYM];
                    for (int i = 0; i < count; i++) {
                        out[i] = localSyms.global(s[o + (sel == null ? i : sel[i])]);
                    }
                    continue;
                }
                final Ev e = keyEvs[j];
                e.eval(b);
                if (e.isLong) {
                    for (int i = 0; i < count; i++) {
                        out[i] = e.l[e.off + (sel == null ? i : sel[i])];
                    }
                } else {
                    for (int i = 0; i < count; i++) {
                        double v = e.d[e.off + (sel == null ? i : sel[i])];
                        if (v == 0) {
                            v = 0; // -0.0 and 0.0 are one key
                        }
                        out[i] = Double.doubleToLongBits(v);
                    }
                }
            }
            if (k == 1) {
                final long[] kv = keyVals[0];
                long last = 0;
                int lastG = -1;
                for (int i = 0; i < count; i++) {
                    final long v = kv[i];
                    if (lastG < 0 || v != last) {
                        lastG = groupOf1(v);
                        last = v;
                    }
                    gid[i] = lastG;
                }
                runs = runs(count);
            } else {
                final long[] tuple = new long[k];
                for (int i = 0; i < count; i++) {
                    for (int j = 0; j < k; j++) {
                        tuple[j] = keyVals[j][i];
                    }
                    gid[i] = groupOf(tuple);
                }
                runs = runs(count);
            }
        }
        // long runs of one group (sorted data, bars): accumulators fold each run in registers
        final boolean longRuns = runs * 4 <= count;
        for (final Accumulator a : accs) {
            a.add(b, gid, longRuns);
        }
    }

    /** Number of runs of equal group numbers in gid[0..count). */
    private int runs(final int count) {
        final int[] g = gid;
        int r = count > 0 ? 1 : 0;
        for (int i = 1; i < count; i++) {
            r += g[i] != g[i - 1] ? 1 : 0;
        }
        return r;
    }

    /** Adds {@code n} rows of a local sym to every (count) aggregate of its group: index-only counting. */
    void addCount(final int localSym, final long n) {
        if (localSym >= localToGroup.length) {
            growLocal(localSym);
        }
        int g = localToGroup[localSym];
        if (g < 0) {
            g = groupOfSym(localSyms.global(localSym));
            localToGroup[localSym] = g;
        }
        for (final Accumulator a : accs) {
            ((CountAccumulator) a).n[g] += n;
        }
    }

    private int[] growLocal(final int local) {
        localToGroup = SymDict.grown(localToGroup, local, -1);
        return localToGroup;
    }

    private static int hash(final long[] key, final int k, final int at) {
        long h = 0x9E3779B97F4A7C15L;
        for (int j = 0; j < k; j++) {
            h = (h ^ key[at + j]) * 0xC2B2AE3D27D4EB4FL;
            h ^= h >>> 29;
        }
        return (int) (h ^ h >>> 32);
    }

    private final long[] one = new long[1];

    /** The group of a global sym id in the bound segment (its date fills any date keys). */
    private int groupOfSym(final long global) {
        if (k == 1) {
            return groupOfSymKey((int) global);
        }
        for (int j = 0; j < k; j++) {
            symTuple[j] = j == symAt ? global : bound.epochDay();
        }
        return groupOf(symTuple);
    }

    /** The group of a query-wide sym id when the sym is the only key: an array, no hashing. */
    private int groupOfSymKey(final int global) {
        if (global >= symToGroup.length) {
            symToGroup = SymDict.grown(symToGroup, global, -1);
        }
        int g = symToGroup[global];
        if (g < 0) {
            one[0] = global;
            g = newGroup(one, 0);
            symToGroup[global] = g;
        }
        return g;
    }

    private int groupOf1(final long v) {
        one[0] = v;
        return groupOf(one);
    }

    /** Group number of a key tuple, created when new. */
    int groupOf(final long[] key) {
        int h = hash(key, k, 0) & mask;
        while (true) {
            final int e = table[h];
            if (e == 0) {
                final int g = newGroup(key, 0);
                table[h] = g + 1;
                if (size * 2 > mask) {
                    rehash();
                }
                return g;
            }
            final int g = e - 1;
            if (equal(key, g)) {
                return g;
            }
            h = (h + 1) & mask;
        }
    }

    private boolean equal(final long[] key, final int g) {
        final int at = g * k;
        for (int j = 0; j < k; j++) {
            if (keys[at + j] != key[j]) {
                return false;
            }
        }
        return true;
    }

    private int newGroup(final long[] key, final int from) {
        final int g = size;
        if (g >= maxGroups) {
            throw QueryException.tooLarge("result over the row limit [groups>" + maxGroups + ", maxRows=" + maxGroups
                + "]: narrow the query or group more coarsely");
        }
        if ((g + 1) * k > keys.length) {
            keys = Arrays.copyOf(keys, Math.max((g + 1) * k, keys.length << 1));
        }
        System.arraycopy(key, from, keys, g * k, k);
        size = g + 1;
        for (final Accumulator a : accs) {
            a.ensure(size);
        }
        return g;
    }

    private void rehash() {
        final int cap = (mask + 1) << 1;
        table = new int[cap];
        mask = cap - 1;
        for (int g = 0; g < size; g++) {
            int h = hash(keys, k, g * k) & mask;
            while (table[h] != 0) {
                h = (h + 1) & mask;
            }
            table[h] = g + 1;
        }
    }

    /** Folds a scan over later rows into this one. */
    void merge(final Groups other) {
        final int[] map = new int[other.size];
        final long[] key = new long[k];
        for (int g = 0; g < other.size; g++) {
            System.arraycopy(other.keys, g * k, key, 0, k);
            map[g] = k == 0 ? 0 : symOnly && k == 1 ? groupOfSymKey((int) key[0]) : groupOf(key);
        }
        for (int i = 0; i < accs.length; i++) {
            accs[i].merge(other.accs[i], map, other.size);
        }
    }

    long key(final int g, final int j) {
        return keys[g * k + j];
    }
}
