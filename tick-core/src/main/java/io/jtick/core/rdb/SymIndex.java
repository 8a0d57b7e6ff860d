package io.jtick.core.rdb;

import io.jtick.core.table.RowSink;

import java.util.Arrays;

/**
 * The sym index ({@code g#}): for each symbol id, the ascending row numbers that hold it, so a
 * one-sym query visits only its own rows. It is built off the insert path, a column chunk
 * ({@link ColumnStore#CHUNK_ROWS} rows) at a time ({@link #catchUp}), by the table's
 * {@link SymIndexAgent} as soon as the writer has filled a chunk, and by whichever query first
 * needs rows the index does not cover yet (the partly filled last chunk, and whatever whole chunks
 * the agent, if any, has not sorted yet): each chunk's sym ids are
 * sorted into one {@link Block} by a counting sort (count each sym's rows, turn the counts into
 * start offsets, then drop each row number at its sym's next offset), two sequential passes over
 * the chunk with the counts in the L1 cache, where adding row by row to each sym's own list costs a
 * scattered store per row into one of a thousand lists. A full chunk's block never changes; the
 * rows of the last, partly filled chunk are a tail block that a later catch-up replaces with a
 * longer one (at most one chunk of rows sorted again per catch-up).
 *
 * <p>A block holds the chunk's rows grouped by sym ({@code rows}, 4 bytes per row) and where each
 * sym's rows start: by sym id up to the block's largest ({@code starts[sym]..starts[sym + 1]}) while
 * the catalog holds at most {@value #DENSE_SYMS} syms (at most 1 byte per row), else for the block's
 * distinct syms only, sorted ({@code syms}, searched by bisection). Memory is 4 bytes per indexed
 * row plus those starts.
 *
 * <p>Threads: {@link #catchUp} builds under this object's lock, one thread at a time, so each full
 * chunk is sorted once; it publishes an immutable {@link State} (full blocks, their count, the tail)
 * through a volatile, after every array the state reaches is written, so a reader on any thread
 * that reads the state sees complete blocks. Blocks are only ever added: an older state's count
 * keeps its readers to the blocks it had. A reader hands out rows below its own row count only (a
 * state built for a later reader may cover more), so a query sees every row of its snapshot and
 * nothing past it.
 */
final class SymIndex {
    /** Catalog size up to which a block's starts are by sym id; above, a block lists its distinct syms. */
    static final int DENSE_SYMS = ColumnStore.CHUNK_ROWS / 4;

    /** One run of rows {@code [first, end)} of one chunk, grouped by sym. Immutable once published. */
    static final class Block {
        final int first;
        final int end;
        /** Null: {@code starts} is by sym id; else the block's distinct sym ids, ascending, {@code starts} aligned. */
        final int[] syms;
        final int[] starts;
        /** The rows, sym by sym, ascending within a sym. */
        final int[] rows;

        Block(final int first, final int end, final int[] syms, final int[] starts, final int[] rows) {
            this.first = first;
            this.end = end;
            this.syms = syms;
            this.starts = starts;
            this.rows = rows;
        }

        /** Position of {@code sym}'s entry in {@link #starts}, or -1 when the block has no row of it. */
        int slot(final int sym) {
            if (syms == null) {
                return sym < starts.length - 1 ? sym : -1;
            }
            final int i = Arrays.binarySearch(syms, sym);
            return i < 0 ? -1 : i;
        }

        long bytes() {
            return 32 + arrayBytes(rows.length) + arrayBytes(starts.length) + (syms == null ? 0 : arrayBytes(syms.length));
        }
    }

    /** What readers see: blocks {@code full[0..fullCount)} for whole chunks, then the tail's rows (or none). */
    static final class State {
        final Block[] full;
        final int fullCount;
        final Block tail;
        /** Rows covered: {@code [0, rows)}. */
        final int rows;

        State(final Block[] full, final int fullCount, final Block tail) {
            this.full = full;
            this.fullCount = fullCount;
            this.tail = tail;
            this.rows = tail != null ? tail.end : fullCount == 0 ? 0 : full[fullCount - 1].end;
        }
    }

    private static final State EMPTY = new State(new Block[0], 0, null);

    /** Where full blocks' row lists come from and go back to (see {@link #release}), or null. */
    private final ChunkPool pool;
    private volatile State state = EMPTY;
    /** Set once the table's chunks went back to the pool: the index is empty for good. */
    private boolean released;
    /** Heap bytes of the published blocks (written under the lock). */
    private volatile long bytes;
    /** Builder scratch, under the lock: rows per sym id, then each sym's next offset; all zero between builds. */
    private int[] counts;
    /** Builder scratch: the distinct syms of a chunk (the sparse case). */
    private int[] distinct;

    SymIndex(final int expectedSyms) {
        this(expectedSyms, null);
    }

    /**
     * @param pool the table's {@link ChunkPool}, or null: a full chunk's row list is a chunk-sized
     *             {@code int[]}, taken from the pool when it has one (memory already in use, not
     *             zeroed: every entry is written) and given back with the table's chunks
     */
    SymIndex(final int expectedSyms, final ChunkPool pool) {
        this.pool = pool;
        counts = new int[Math.max(16, expectedSyms)];
    }

    /**
     * Any thread: brings the index up to {@code rows} rows of the table, from its sym column chunks
     * ({@code symChunks}, a holder the caller read after the row count, so rows below {@code rows}
     * are published and no longer change), and returns a state that covers them. Returns at once
     * when the index covers them already; otherwise one thread at a time sorts the whole chunks not
     * yet indexed and the rows of the last partly filled one.
     *
     * @param symLimit a bound on the sym ids of those rows (the catalog's size after the count was read), a sizing hint
     */
    State catchUp(final Object[] symChunks, final int rows, final int symLimit) {
        final State s = state;
        if (s.rows >= rows) {
            return s;
        }
        synchronized (this) {
            final State now = state;
            if (now.rows >= rows || released) {
                return now;
            }
            Block[] full = now.full;
            int count = now.fullCount;
            long b = bytes - (now.tail == null ? 0 : now.tail.bytes());
            while ((long) (count + 1) << ColumnStore.SHIFT <= rows) {
                final Block block = build((int[]) symChunks[count], ColumnStore.CHUNK_ROWS, count << ColumnStore.SHIFT, symLimit);
                if (count == full.length) {
                    final int old = full.length;
                    full = Arrays.copyOf(full, Math.max(8, old << 1));
                    b += arrayBytes(full.length) - (old == 0 ? 0 : arrayBytes(old));
                }
                full[count++] = block;
                b += block.bytes();
            }
            final int tailFirst = count << ColumnStore.SHIFT;
            Block tail = null;
            if (rows > tailFirst) {
                tail = build((int[]) symChunks[count], rows - tailFirst, tailFirst, symLimit);
                b += tail.bytes();
            }
            final State next = new State(full, count, tail);
            bytes = b;
            state = next;
            return next;
        }
    }

    /** Under the lock: rows {@code first..first+n-1}, whose sym ids are {@code syms[0..n)}, sorted by sym into a block. */
    private Block build(final int[] syms, final int n, final int first, final int symLimit) {
        if (counts.length < symLimit) {
            counts = new int[Math.max(symLimit, counts.length << 1)];
        }
        return symLimit <= DENSE_SYMS ? buildDense(syms, n, first, symLimit) : buildSparse(syms, n, first);
    }

    /**
     * The count pass tracks no running maximum (a compare and a move per row, a third of the pass): ids
     * below {@code symLimit} need nothing, a larger one (the hint was low) raises the bound in the rarely
     * taken branch, and the block's largest sym is then found by scanning the counts down from the bound.
     */
    private Block buildDense(final int[] syms, final int n, final int first, final int symLimit) {
        int[] c = counts;
        int bound = Math.min(c.length, Math.max(0, symLimit));
        for (int i = 0; i < n; i++) {
            final int s = syms[i];
            if (s >= bound) {
                if (s >= c.length) {
                    c = grownCounts(s);
                }
                bound = s + 1;
            }
            c[s]++;
        }
        int limit = bound;
        while (limit > 0 && c[limit - 1] == 0) {
            limit--;
        }
        final int[] starts = new int[limit + 1];
        int at = 0;
        for (int s = 0; s < limit; s++) {
            starts[s] = at;
            final int k = c[s];
            c[s] = at;
            at += k;
        }
        starts[limit] = at;
        final int[] rows = rowList(n);
        scatter(syms, n, first, c, rows);
        Arrays.fill(c, 0, limit, 0);
        return new Block(first, first + n, null, starts, rows);
    }

    private Block buildSparse(final int[] syms, final int n, final int first) {
        int[] c = counts;
        if (distinct == null) {
            distinct = new int[ColumnStore.CHUNK_ROWS];
        }
        final int[] d = distinct;
        int found = 0;
        for (int i = 0; i < n; i++) {
            final int s = syms[i];
            if (s >= c.length) {
                c = grownCounts(s);
            }
            if (c[s]++ == 0) {
                d[found++] = s;
            }
        }
        Arrays.sort(d, 0, found);
        final int[] keys = Arrays.copyOf(d, found);
        final int[] starts = new int[found + 1];
        int at = 0;
        for (int i = 0; i < found; i++) {
            final int s = keys[i];
            starts[i] = at;
            final int k = c[s];
            c[s] = at;
            at += k;
        }
        starts[found] = at;
        final int[] rows = rowList(n);
        scatter(syms, n, first, c, rows);
        for (int i = 0; i < found; i++) {
            c[keys[i]] = 0;
        }
        return new Block(first, first + n, keys, starts, rows);
    }

    /** A row list for {@code n} rows: a whole chunk's from the pool when it has one, else a new array. */
    private int[] rowList(final int n) {
        final int[] reused = n == ColumnStore.CHUNK_ROWS && pool != null ? pool.takeInts() : null;
        return reused != null ? reused : new int[n];
    }

    /**
     * Once no segment can read the index (its table retired and every segment closed): the full
     * blocks' row lists go back to the pool and the index stays empty.
     */
    void release() {
        final State s;
        synchronized (this) {
            released = true;
            s = state;
            state = EMPTY;
            bytes = 0;
        }
        if (pool != null) {
            final int[][] lists = new int[s.fullCount][];
            for (int k = 0; k < s.fullCount; k++) {
                lists[k] = s.full[k].rows;
            }
            pool.giveInts(lists, lists.length);
        }
    }

    /** Each row's number at its sym's next offset ({@code next[sym]}, advanced): ascending within a sym. */
    private static void scatter(final int[] syms, final int n, final int first, final int[] next, final int[] rows) {
        for (int i = 0; i < n; i++) {
            rows[next[syms[i]]++] = first + i;
        }
    }

    private int[] grownCounts(final int sym) {
        counts = Arrays.copyOf(counts, Math.max(sym + 1, counts.length << 1));
        return counts;
    }

    /** Any thread: rows the published state covers. */
    int coveredRows() {
        return state.rows;
    }

    /** Any thread (a figure of a moment ago): heap bytes the index holds. */
    long bytes() {
        return bytes;
    }

    /**
     * Any thread: hands the rows of {@code sym} below {@code rows} that {@code s} covers to
     * {@code sink}, in ascending order: a block's rows of the sym as a range when they are
     * consecutive (adjacent ranges merged), else as a slice of the block's row list.
     */
    static void rows(final State s, final int sym, final int rows, final RowSink sink) {
        if (sym < 0 || rows <= 0) {
            return;
        }
        int rangeFrom = -1;
        int rangeTo = -1;
        for (int k = 0; k <= s.fullCount; k++) {
            final Block b = k < s.fullCount ? s.full[k] : s.tail;
            if (b == null || b.first >= rows) {
                break;
            }
            final int slot = b.slot(sym);
            if (slot < 0) {
                continue;
            }
            final int[] list = b.rows;
            final int from = b.starts[slot];
            int to = b.starts[slot + 1];
            if (b.end > rows) {
                to = lowerBound(list, from, to, rows);
            }
            if (from == to) {
                continue;
            }
            final int first = list[from];
            final int last = list[to - 1];
            if (last - first == to - from - 1) {
                if (rangeTo != first) {
                    if (rangeFrom >= 0) {
                        sink.range(rangeFrom, rangeTo);
                    }
                    rangeFrom = first;
                }
                rangeTo = last + 1;
            } else {
                if (rangeFrom >= 0) {
                    sink.range(rangeFrom, rangeTo);
                    rangeFrom = -1;
                    rangeTo = -1;
                }
                sink.rows(list, from, to);
            }
        }
        if (rangeFrom >= 0) {
            sink.range(rangeFrom, rangeTo);
        }
    }

    /** First position in the ascending {@code list[from..to)} whose value is at least {@code v}. */
    private static int lowerBound(final int[] list, final int from, final int to, final int v) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (list[mid] < v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static long arrayBytes(final int length) {
        return (16L + 4L * length + 7) & ~7L;
    }
}
