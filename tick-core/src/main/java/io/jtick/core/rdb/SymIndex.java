package io.jtick.core.rdb;

import io.jtick.core.table.RowSink;

import java.util.Arrays;

/**
 * The sym index ({@code g#}): for each symbol id, the ascending row numbers that hold it, so a
 * one-sym query visits only its own rows. A symbol's rows live in a chain of blocks whose sizes
 * double from {@value #FIRST_BLOCK} to {@value #MAX_BLOCK} entries; blocks are carved out of
 * shared {@code int} slabs of {@value #SLAB_INTS} entries (256 KB, never a humongous object), so
 * the index costs 4 bytes per row plus at most one partly filled block per symbol and the unused
 * tail of the slabs in use; a block, once full, is never copied or freed, and adding rows leaves
 * no garbage. Blocks of {@value #MAX_BLOCK} come from slabs of their own (sixteen to a slab, no
 * tail), smaller ones from a slab shared by the small sizes.
 *
 * <p>Adding a row reads the symbol's next entry and block end, which sit side by side in one
 * writer array, and stores the row: one scattered store per row, the floor of a per-row index.
 * {@link #addAll} adds an update's rows in one loop that leaves the writer's arrays in registers
 * (about 3.5 ns per row here with 1000 symbols; three writer arrays indexed by symbol (slab, next
 * entry, block end), added to row by row, took 4-5 ns, and a separate postings array per symbol
 * 7-8 ns).
 *
 * <p>The writer: whichever query thread calls {@link #catchUp}, which indexes the table's rows
 * published since the last call, one thread at a time (the insert path never touches the index).
 * A reader calls {@link #catchUp} up to its segment's row count {@code n} before {@link #rows}, and
 * so sees at least the entries of rows {@code < n}, while another thread may be adding later rows.
 * Arrays replaced on growth go through volatile stores so a reader that sees a newer array sees its
 * contents. Readers stop at the first entry that is not below their row count or not ascending,
 * and so never hand out rows past their snapshot.
 */
final class SymIndex {
    static final int FIRST_BLOCK = 8;
    static final int MAX_BLOCK = 4096;
    static final int SLAB_SHIFT = 16;
    static final int SLAB_INTS = 1 << SLAB_SHIFT;

    /** One symbol's chain as readers see it: block i starts at {@code blocks[i] - 1} ({@code slab << 16 | offset}), 0 = none yet. */
    static final class Postings {
        volatile int[] blocks = new int[8];
        /** Writer: blocks in the chain. */
        int blockCount;
    }

    /** Readers: every slab, by number. */
    private volatile int[][] slabs = new int[4][];
    /** Readers: each symbol's chain, null until the symbol has a row. */
    private volatile Postings[] bySym;
    /**
     * Writer, by symbol id, side by side so that one cache line serves a row: {@code at[2 * sym]} is
     * the next free entry of the symbol's current block ({@code slab << 16 | offset}) and
     * {@code at[2 * sym + 1]} its end; both 0 before the symbol's first row.
     */
    private int[] at;
    /** Writer: the same slabs as {@link #slabs}, read without a volatile load per row. */
    private int[][] writerSlabs;
    /** Rows indexed so far (written under the lock of {@link #catchUp}). */
    private volatile int indexed;
    /** Writer: slabs allocated; where the next full-size block and the next small block go (slab, entry). */
    private int slabCount;
    private int bigSlab = -1;
    private int bigPos = SLAB_INTS;
    private int smallSlab = -1;
    private int smallPos = SLAB_INTS;
    /** Heap bytes held (slabs, chains, postings objects, the by-sym arrays); written by the writer. */
    private volatile long bytes;

    SymIndex(final int expectedSyms) {
        final int n = Math.max(16, expectedSyms);
        bySym = new Postings[n];
        at = new int[2 * n];
        writerSlabs = slabs;
        bytes = arrayBytes(n) + arrayBytes(2 * n) + arrayBytes(4);
    }

    /**
     * Any thread: indexes rows {@code indexed..rows-1} of the table from its sym column chunks
     * ({@code symChunks}, the table's published chunk holder; rows below {@code rows} are published
     * and no longer change). Returns at once when they are indexed already; otherwise one thread at
     * a time does the work, so each row is indexed once.
     */
    void catchUp(final Object[] symChunks, final int rows) {
        if (indexed >= rows) {
            return;
        }
        synchronized (this) {
            int row = indexed;
            while (row < rows) {
                final int from = row & ColumnStore.MASK;
                final int to = Math.min(from + (rows - row), ColumnStore.CHUNK_ROWS);
                addAll((int[]) symChunks[row >>> ColumnStore.SHIFT], from, to, row);
                row += to - from;
            }
            if (row > indexed) {
                indexed = row;
            }
        }
    }

    /** Entries of block {@code i} of a chain. */
    static int blockSize(final int i) {
        return i >= 9 ? MAX_BLOCK : FIRST_BLOCK << i;
    }

    /**
     * Writer: records rows {@code row, row + 1, ...} as holding the symbols
     * {@code syms[from..to)} (one update's rows of one column chunk), in ascending row order
     * across calls. The loop keeps the writer's arrays in registers and leaves only for a new
     * block, a new symbol or a symbol id past the arrays.
     */
    void addAll(final int[] syms, final int from, final int to, final int firstRow) {
        int i = from;
        int row = firstRow;
        while (i < to) {
            final int[] a = at;
            final int[][] slab = writerSlabs;
            final int known = a.length >> 1;
            for (; i < to; i++, row++) {
                final int sym = syms[i];
                if (sym >= known) {
                    break;
                }
                final int p = a[2 * sym];
                if (p >= a[2 * sym + 1]) {
                    break;
                }
                slab[p >>> SLAB_SHIFT][p & (SLAB_INTS - 1)] = row;
                a[2 * sym] = p + 1;
            }
            if (i < to) {
                addToNewBlock(syms[i], row);
                i++;
                row++;
            }
        }
    }

    /** Writer: a new symbol, a full block, or a symbol id past the arrays. */
    private void addToNewBlock(final int sym, final int row) {
        if (sym >= at.length >> 1) {
            grow(sym);
        }
        long b = 0; // bytes this adds (newSlab counts its own), published once at the end
        final Postings[] lists = bySym;
        Postings p = lists[sym];
        if (p == null) {
            p = new Postings();
            lists[sym] = p;
            b += 32 + arrayBytes(8);
        }
        final int size = blockSize(p.blockCount);
        final int slab;
        final int entry;
        if (size == MAX_BLOCK) {
            if (bigPos == SLAB_INTS) {
                bigSlab = newSlab();
                bigPos = 0;
                b += arrayBytes(SLAB_INTS);
            }
            slab = bigSlab;
            entry = bigPos;
            bigPos += size;
        } else {
            if (smallPos + size > SLAB_INTS) {
                smallSlab = newSlab();
                smallPos = 0;
                b += arrayBytes(SLAB_INTS);
            }
            slab = smallSlab;
            entry = smallPos;
            smallPos += size;
        }
        int[] chain = p.blocks;
        if (p.blockCount == chain.length) {
            chain = Arrays.copyOf(chain, chain.length << 1);
            b += arrayBytes(chain.length) - arrayBytes(chain.length >> 1);
        }
        chain[p.blockCount++] = (slab << SLAB_SHIFT | entry) + 1;
        p.blocks = chain;
        slabs[slab][entry] = row;
        final int first = slab << SLAB_SHIFT | entry;
        at[2 * sym] = first + 1;
        at[2 * sym + 1] = first + size;
        bytes += b;
    }

    private int newSlab() {
        // one slab short of 2^31 entries: a block's end (slab << 16 | offset) + size must stay a positive int
        if (slabCount == (1 << (31 - SLAB_SHIFT)) - 1) {
            throw new IllegalStateException("sym index full [slabs=" + slabCount + ", entries=" + ((long) slabCount << SLAB_SHIFT) + "]");
        }
        int[][] all = slabs;
        if (slabCount == all.length) {
            all = Arrays.copyOf(all, all.length << 1);
            bytes += arrayBytes(all.length) - arrayBytes(all.length >> 1);
        }
        all[slabCount] = new int[SLAB_INTS];
        slabs = all;
        writerSlabs = all;
        return slabCount++;
    }

    private void grow(final int sym) {
        final int old = at.length >> 1;
        int cap = old;
        while (cap <= sym) {
            cap <<= 1;
        }
        at = Arrays.copyOf(at, 2 * cap);
        bySym = Arrays.copyOf(bySym, cap);
        bytes += arrayBytes(cap) - arrayBytes(old) + arrayBytes(2 * cap) - arrayBytes(2 * old); // two arrays replaced by bigger ones
    }

    /** Any thread (a figure of a moment ago): heap bytes the index holds. */
    long bytes() {
        return bytes;
    }

    /**
     * Reader: hands the rows of {@code sym} below {@code rows} to {@code sink}: each block as a
     * slice of its slab, or as a range when its rows are consecutive (adjacent ranges merged).
     * Entries past the published ones may be rows appended since, or slots whose write is not
     * visible yet (zeros): both are trimmed from a block's end (each slot read once, since the writer
     * may fill it between two reads), and a lone first entry 0 is checked against the sym column
     * ({@code firstRowSym}: the sym id of row 0, or -1 when there are no rows).
     */
    void rows(final int sym, final int rows, final int firstRowSym, final RowSink sink) {
        final Postings[] lists = bySym;
        final Postings p = sym >= 0 && sym < lists.length ? lists[sym] : null;
        if (p == null || rows == 0) {
            return;
        }
        final int[] chain = p.blocks;
        final int[][] all = slabs;
        int prev = -1;
        int rangeFrom = -1;
        int rangeTo = -1;
        for (int b = 0; b < chain.length && chain[b] != 0; b++) {
            final int start = chain[b] - 1;
            final int slab = start >>> SLAB_SHIFT;
            if (slab >= all.length || all[slab] == null) {
                break;
            }
            final int[] list = all[slab];
            final int from = start & (SLAB_INTS - 1);
            final int size = blockSize(b);
            int to = from + size;
            int last = -1;
            while (to > from) {
                // each entry read once: the writer may fill a slot between two reads of it
                final int v = list[to - 1];
                if (v < rows && v > (to - 1 > from ? list[to - 2] : prev)) {
                    last = v;
                    break;
                }
                to--;
            }
            if (b == 0 && to == from + 1 && last == 0 && firstRowSym != sym) {
                to = from;
            }
            if (to == from) {
                break;
            }
            final int first = to == from + 1 ? last : list[from];
            if (last - first == to - from - 1) {
                if (rangeTo == first) {
                    rangeTo = last + 1;
                } else {
                    if (rangeFrom >= 0) {
                        sink.range(rangeFrom, rangeTo);
                    }
                    rangeFrom = first;
                    rangeTo = last + 1;
                }
            } else {
                if (rangeFrom >= 0) {
                    sink.range(rangeFrom, rangeTo);
                    rangeFrom = -1;
                    rangeTo = -1;
                }
                sink.rows(list, from, to);
            }
            prev = last;
            if (to < from + size) {
                break;
            }
        }
        if (rangeFrom >= 0) {
            sink.range(rangeFrom, rangeTo);
        }
    }

    private static long arrayBytes(final int length) {
        return (16L + 4L * length + 7) & ~7L;
    }
}
