package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One in-memory table of the RDB: each column a list of fixed-size primitive chunks
 * ({@link ColumnStore}: {@code long[]} timestamp/int64, {@code int[]} sym ids and int32,
 * {@code double[]}, {@code float[]}, {@code short[]}, {@code byte[]} for byte/bool/char) plus,
 * unless the table is made without it, a {@link SymIndex} ({@code g#}). {@link #append} copies each
 * column block of an update straight from the frame's memory and maps the update's sym codes to
 * catalog ids through a {@link SymDictionaryCache}; nothing is allocated per row or per update
 * unless a chunk or a new symbol is added. The sym index is kept off the insert path: a table given
 * a {@link SymIndexAgent} hands it each chunk the writer fills, which the agent's thread sorts into the
 * index at once (and, in growing steps, to the rows per sym that {@code count by sym} reads, {@link SymCounts});
 * the first query that asks a segment for one sym's rows indexes whatever rows published
 * since are not indexed yet (without an agent, all of them), a whole chunk at a time by a counting
 * sort ({@link SymIndex#catchUp}), so inserts never pay for it and queries always see every row.
 * A table without the index answers the same question by scanning its sym column. Growth never
 * copies what is there (except while the first chunk is still smaller than a full one), so memory
 * is the rows' bytes, about 4 bytes of index per row once indexed and at most one partly filled
 * chunk per column.
 *
 * <p>Threads: one writer (the subscription's event loop) calls {@link #append}; any thread may
 * call {@link #segment}, {@link #rowCount} and {@link #memoryBytes}. The writer stores values,
 * then publishes the row count through a volatile; a reader reads the count first, then the
 * (volatile) chunk holder, so every row below the count is fully visible. A chunk is added to
 * the holder before rows are written into it; a holder whose slot arrays are full, or whose first
 * chunk grows, is replaced by a copy, published through the volatile before any row goes in.
 * A {@link SymIndexAgent}'s thread reads the same way ({@link #indexWholeChunks}), holding the
 * chunks as a segment does while it sorts.
 *
 * <p>Chunk reuse: a table made with a {@link ChunkPool} takes its chunks, and its sym index the row
 * lists of whole chunks, from the pool when it can (chunks of a retired table, not zeroed: no row at
 * or above the published count is ever read, and a row list is written whole) and gives them back
 * once it is retired ({@link #retire}) and every segment taken from it is closed (or unreachable):
 * until then a query that started before end of day keeps reading the day's rows. A segment of a
 * retired table whose chunks went back cannot be taken ({@link #trySegment} answers null; the RDB
 * then takes the table that replaced it).
 */
public final class RealtimeTable {
    /** Rows a table starts with when no capacity is given. */
    public static final int DEFAULT_CAPACITY = 1024;
    private static final int MAX_ROWS = Integer.MAX_VALUE - ColumnStore.CHUNK_ROWS;

    private final TableSchema schema;
    private final SymbolCatalog symbols;
    private final SymIndex index;
    /** Rows per sym for {@code count by sym}, kept over whole chunks by the queries that ask. */
    private final SymCounts counts = new SymCounts();
    private final ColumnType[] types;
    private final SymDictionaryCache dictionaries = new SymDictionaryCache();
    /** Where chunks come from and go back to, or null (fresh arrays, left to the GC). */
    private final ChunkPool pool;
    /** Holders of the chunks: the table itself until {@link #retire}, plus each open segment; 0 = chunks given back. */
    private final AtomicInteger holders = new AtomicInteger(1);
    private final AtomicBoolean retired = new AtomicBoolean();
    /** Sorts each chunk the writer fills into the index on its own thread, or null (the queries index every row). */
    private final SymIndexAgent agent;
    /** A hand-over to the agent is pending: the writer hands the table over again only once the agent has taken it. */
    private final AtomicBoolean agentQueued = new AtomicBoolean();

    /** {@code chunks[column][k]}: chunk k of a column; slots past the capacity are null. */
    private volatile Object[][] chunks;
    /** Rows readers may see. */
    private volatile int published;
    /** Heap bytes of the column chunks and their holder, updated by the writer on growth. */
    private volatile long columnBytes;
    /** Writer state: rows written, rows the chunks hold, time order so far. */
    private int rows;
    private int capacity;
    private long lastTime = Long.MIN_VALUE;
    private boolean timeSorted = true;

    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols) {
        this(schema, symbols, DEFAULT_CAPACITY);
    }

    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols, final int initialCapacity) {
        this(schema, symbols, initialCapacity, true);
    }

    /**
     * @param initialCapacity rows to hold before the first growth: a smaller first chunk below
     *                        {@link ColumnStore#CHUNK_ROWS}, else whole chunks allocated now (the
     *                        lab sizes a table up front so that nothing is allocated while it measures)
     * @param symIndexed      keep a sym index ({@code g#}) for one-sym queries; without it they scan the sym column
     */
    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols, final int initialCapacity, final boolean symIndexed) {
        this(schema, symbols, initialCapacity, symIndexed, null);
    }

    /**
     * @param pool chunks to reuse and to give back once retired (see the class comment), or null
     */
    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols, final int initialCapacity, final boolean symIndexed,
                         final ChunkPool pool) {
        this(schema, symbols, initialCapacity, symIndexed, pool, null);
    }

    /**
     * @param agent the thread that indexes each chunk as soon as it is full (see {@link SymIndexAgent}), or null: the queries
     *              index every row; unused without the index
     */
    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols, final int initialCapacity, final boolean symIndexed,
                         final ChunkPool pool, final SymIndexAgent agent) {
        if (initialCapacity < 1 || initialCapacity > MAX_ROWS) {
            throw new IllegalArgumentException("capacity must be 1.." + MAX_ROWS + " [table=" + schema.name()
                + ", capacity=" + initialCapacity + "]");
        }
        this.schema = schema;
        this.symbols = symbols;
        this.index = symIndexed ? new SymIndex(symbols.size() + 16, pool) : null;
        this.types = new ColumnType[schema.columnCount()];
        for (int c = 0; c < types.length; c++) {
            types[c] = schema.type(c);
        }
        this.pool = pool;
        this.agent = symIndexed ? agent : null;
        final Object[] reused = pool == null ? null : pool.take(types);
        final int first = reused != null ? ColumnStore.CHUNK_ROWS : Math.min(initialCapacity, ColumnStore.CHUNK_ROWS);
        final int slots = Math.max(4, ColumnStore.chunksFor(initialCapacity));
        final Object[][] holder = new Object[types.length][];
        long bytes = refArrayBytes(types.length);
        for (int c = 0; c < types.length; c++) {
            holder[c] = new Object[slots];
            holder[c][0] = reused != null ? reused[c] : types[c].newArray(first);
            bytes += refArrayBytes(slots) + ColumnStore.arrayBytes(types[c], first);
        }
        this.capacity = first;
        this.chunks = holder;
        this.columnBytes = bytes;
        if (initialCapacity > first) {
            ensureCapacity(0, initialCapacity);
        }
    }

    public TableSchema schema() {
        return schema;
    }

    public String name() {
        return schema.name();
    }

    /** Rows published to readers. */
    public int rowCount() {
        return published;
    }

    /** Writer thread: rows the allocated chunks hold. */
    int capacity() {
        return capacity;
    }

    /**
     * Any thread: heap bytes this table holds: column chunks (allocated, so including the unused
     * part of the last chunk), the sym index and the dictionary cache. A reader on another thread
     * may see the figure of a moment ago.
     */
    public long memoryBytes() {
        return columnBytes + (index == null ? 0 : index.bytes()) + dictionaries.bytes();
    }

    /** True when one-sym queries use a sym index ({@code g#}) rather than a scan of the sym column. */
    public boolean symIndexed() {
        return index != null;
    }

    /**
     * Any thread: indexes the rows published so far, the work the next one-sym query would do
     * first (the RDB does it once its catch-up replay is in); nothing for a table without the index.
     */
    public void indexPublished() {
        if (index != null) {
            final int n = published;
            index.catchUp(chunks[TableSchema.SYM], n, symbols.size());
        }
    }

    /**
     * The {@link SymIndexAgent}'s thread: indexes the whole chunks published so far (the last, partly
     * filled one is left to the queries), unless the table's chunks went back to the pool.
     */
    void indexWholeChunks() {
        agentQueued.set(false);
        if (!hold()) {
            return;
        }
        try {
            final int n = published & ~ColumnStore.MASK;
            final Object[] sym = chunks[TableSchema.SYM];
            index.catchUp(sym, n, symbols.size());
            counts.follow(sym, n >>> ColumnStore.SHIFT);
        } finally {
            if (pool != null) {
                unpin();
            }
        }
    }

    /** Any thread (tests): rows the totals of {@code count by sym} cover now ({@link SymCounts}). */
    int countedRows() {
        return counts.countedChunks() << ColumnStore.SHIFT;
    }

    /** Any thread (tests): rows the sym index covers now, 0 without the index. */
    int indexedRows() {
        return index == null ? 0 : index.coveredRows();
    }

    /** Writer thread: dictionaries mapped from the cache / symbol by symbol (see {@link SymDictionaryCache}). */
    long dictionaryHits() {
        return dictionaries.hits();
    }

    long dictionaryMisses() {
        return dictionaries.misses();
    }

    /**
     * Writer thread: appends all rows of an update whose table has this schema, column by column.
     * Sym codes are mapped from the frame's dictionary to {@link SymbolCatalog} ids. The rows
     * become visible to readers only once the whole update is in.
     *
     * @return rows appended
     * @throws IllegalArgumentException when the update does not match the schema or carries a sym
     *     code outside its dictionary; nothing is published then
     */
    public int append(final TableSchema updateSchema, final UpdateDecoder update) {
        if (updateSchema != schema && !schema.equals(updateSchema) || update.columnCount() != types.length) {
            throw new IllegalArgumentException("update does not match table schema [table=" + schema.name()
                + ", update=" + updateSchema.name() + ", columns=" + update.columnCount() + "]");
        }
        final int n = update.rowCount();
        if (n <= 0) {
            return 0;
        }
        final int start = rows;
        final ByteBuf buf = update.buffer();
        ensureCapacity(start, n);
        final Object[][] cols = chunks;
        final Object[] sym = cols[TableSchema.SYM];
        // a dictionary seen before: its codes are checked and mapped to catalog ids as they are
        // copied, in one pass; a new one: copied, checked, then interned (the catalog changes only
        // for an update whose codes are all valid) and mapped
        final int[] known = dictionaries.lookup(update);
        for (int c = 0; c < types.length; c++) {
            if (c != TableSchema.SYM || known == null) {
                copyColumn(types[c], buf, update.dataOffset(c), cols[c], start, n);
            }
        }
        if (known != null) {
            remapSymCodes(buf, update.dataOffset(TableSchema.SYM), sym, start, n, known, update.symCount());
        } else {
            checkSymCodes(sym, start, n, update.symCount());
            final int[] ids = dictionaries.ids(update, symbols);
            for (int row = start, end = start + n; row < end;) {
                final int from = row & ColumnStore.MASK;
                final int to = Math.min(from + (end - row), ColumnStore.CHUNK_ROWS);
                final int[] s = (int[]) sym[row >>> ColumnStore.SHIFT];
                for (int i = from; i < to; i++) {
                    s[i] = ids[s[i]];
                }
                row += to - from;
            }
        }
        // the time-order check reads the copied times while they are in cache; it stops at the first row out of order
        final Object[] time = cols[TableSchema.TIME];
        long last = lastTime;
        boolean sorted = timeSorted;
        for (int row = start, end = start + n; sorted && row < end;) {
            final int k = row >>> ColumnStore.SHIFT;
            final int from = row & ColumnStore.MASK;
            final int to = Math.min(from + (end - row), ColumnStore.CHUNK_ROWS);
            final long[] t = (long[]) time[k];
            for (int i = from; i < to; i++) {
                final long x = t[i];
                sorted &= x >= last;
                last = x;
            }
            row += to - from;
        }
        lastTime = last;
        timeSorted = sorted;
        rows = start + n;
        published = rows;
        // a chunk filled: the agent sorts it into the index while it is still in a cache
        if (agent != null && ((start ^ rows) & ~ColumnStore.MASK) != 0 && !agentQueued.get() && agentQueued.compareAndSet(false, true)) {
            agent.offer(this);
        }
        return n;
    }

    /**
     * The update's sym codes at {@code buf[index..]} into rows {@code start..} as catalog ids
     * through a cached dictionary, checked in the same pass; an update with a code outside its
     * dictionary is refused as {@link #checkSymCodes} refuses it, naming the first such row.
     */
    private void remapSymCodes(final ByteBuf buf, final int index, final Object[] sym, final int start, final int n, final int[] ids,
                               final int dictSize) {
        boolean ok = true;
        int done = 0;
        while (done < n) {
            final int row = start + done;
            final int off = row & ColumnStore.MASK;
            final int k = Math.min(n - done, ColumnStore.CHUNK_ROWS - off);
            ok &= ColumnCopier.remap(buf, index + (done << 2), (int[]) sym[row >>> ColumnStore.SHIFT], off, k, ids, dictSize);
            done += k;
        }
        if (!ok) {
            for (int r = 0; r < n; r++) {
                final int code = buf.getIntLE(index + (r << 2));
                if (code < 0 || code >= dictSize) {
                    throw new IllegalArgumentException("sym code outside the update's dictionary [table=" + schema.name()
                        + ", row=" + r + ", code=" + code + ", dictionary=" + dictSize + "]");
                }
            }
        }
    }

    /**
     * Every code of the update's sym column (copied into rows {@code start..} but not yet
     * published) must be inside its dictionary: checked before the index or the catalog changes.
     */
    private void checkSymCodes(final Object[] sym, final int start, final int n, final int dictSize) {
        int bad = 0;
        for (int row = start, end = start + n; row < end;) {
            final int from = row & ColumnStore.MASK;
            final int to = Math.min(from + (end - row), ColumnStore.CHUNK_ROWS);
            final int[] s = (int[]) sym[row >>> ColumnStore.SHIFT];
            for (int i = from; i < to; i++) {
                bad |= dictSize - 1 - s[i] | s[i];
            }
            row += to - from;
        }
        if (bad < 0) {
            for (int r = 0; r < n; r++) {
                final int row = start + r;
                final int code = ((int[]) sym[row >>> ColumnStore.SHIFT])[row & ColumnStore.MASK];
                if (code < 0 || code >= dictSize) {
                    throw new IllegalArgumentException("sym code outside the update's dictionary [table=" + schema.name()
                        + ", row=" + r + ", code=" + code + ", dictionary=" + dictSize + "]");
                }
            }
        }
    }

    /** Copies {@code n} values from {@code buf[index..]} into rows {@code at..} of a column, chunk by chunk. */
    private static void copyColumn(final ColumnType type, final ByteBuf buf, final int index, final Object[] chunks, final int at,
                                   final int n) {
        final int width = type.width();
        int done = 0;
        while (done < n) {
            final int row = at + done;
            final int off = row & ColumnStore.MASK;
            final int k = Math.min(n - done, ColumnStore.CHUNK_ROWS - off);
            final Object dst = chunks[row >>> ColumnStore.SHIFT];
            final int src = index + done * width;
            switch (type) {
                case TIMESTAMP:
                case INT64:
                    ColumnCopier.copy(buf, src, (long[]) dst, off, k);
                    break;
                case FLOAT64:
                    ColumnCopier.copy(buf, src, (double[]) dst, off, k);
                    break;
                case SYMBOL:
                case INT32:
                    ColumnCopier.copy(buf, src, (int[]) dst, off, k);
                    break;
                case FLOAT32:
                    ColumnCopier.copy(buf, src, (float[]) dst, off, k);
                    break;
                case INT16:
                    ColumnCopier.copy(buf, src, (short[]) dst, off, k);
                    break;
                case BYTE:
                case BOOL:
                case CHAR:
                    ColumnCopier.copy(buf, src, (byte[]) dst, off, k);
                    break;
                default:
                    throw new IllegalStateException("unhandled column type [type=" + type + "]");
            }
            done += k;
        }
    }

    /**
     * Makes room for {@code extra} rows after {@code used}: doubles the first chunk while it is
     * smaller than a full one (the only copy), then adds full chunks.
     */
    private void ensureCapacity(final int used, final int extra) {
        final long need = (long) used + extra;
        if (need <= capacity) {
            return;
        }
        if (need > MAX_ROWS) {
            throw new IllegalStateException("table full [table=" + schema.name() + ", rows=" + used + ", adding=" + extra + "]");
        }
        long bytes = columnBytes;
        if (capacity < ColumnStore.CHUNK_ROWS) {
            int cap = capacity;
            while (cap < need && cap < ColumnStore.CHUNK_ROWS) {
                cap <<= 1;
            }
            cap = Math.min(cap, ColumnStore.CHUNK_ROWS);
            final Object[][] old = chunks;
            final Object[][] grown = new Object[old.length][];
            for (int c = 0; c < old.length; c++) {
                grown[c] = old[c].clone();
                final Object first = types[c].newArray(cap);
                System.arraycopy(old[c][0], 0, first, 0, used);
                grown[c][0] = first;
                bytes += ColumnStore.arrayBytes(types[c], cap) - ColumnStore.arrayBytes(types[c], capacity);
            }
            capacity = cap;
            chunks = grown;
        }
        while (capacity < need) {
            final int k = capacity >>> ColumnStore.SHIFT;
            Object[][] holder = chunks;
            if (k >= holder[0].length) {
                final Object[][] bigger = new Object[holder.length][];
                for (int c = 0; c < holder.length; c++) {
                    bigger[c] = Arrays.copyOf(holder[c], holder[c].length << 1);
                    bytes += refArrayBytes(bigger[c].length);
                }
                chunks = bigger;
                holder = bigger;
            }
            final Object[] reused = pool == null ? null : pool.take(types);
            for (int c = 0; c < holder.length; c++) {
                holder[c][k] = reused != null ? reused[c] : types[c].newArray(ColumnStore.CHUNK_ROWS);
                bytes += ColumnStore.arrayBytes(types[c], ColumnStore.CHUNK_ROWS);
            }
            capacity += ColumnStore.CHUNK_ROWS;
        }
        columnBytes = bytes;
    }

    private static long refArrayBytes(final int length) {
        return (16L + 4L * length + 7) & ~7L;
    }

    /**
     * Any thread: the rows published so far as a query-engine segment of trading day
     * {@code epochDay} (zero-copy reads of the column chunks; the sym index as row lists).
     */
    public TableSegment segment(final int epochDay) {
        final TableSegment s = trySegment(epochDay);
        if (s == null) {
            throw new IllegalStateException("table retired, its memory reused [table=" + schema.name() + "]");
        }
        return s;
    }

    /**
     * Any thread: {@link #segment}, or null when the table is retired and its chunks went back to
     * the pool. A segment of a table with a pool holds its chunks until it is closed.
     */
    public TableSegment trySegment(final int epochDay) {
        if (pool == null) {
            return snapshot(epochDay);
        }
        if (!hold()) {
            return null;
        }
        final RealtimeSegment s = snapshot(epochDay);
        s.holding(pool.pin(s, this));
        return s;
    }

    /** One more holder of the chunks (let go by {@link #unpin}), or false once they went back to the pool; true without a pool. */
    private boolean hold() {
        if (pool == null) {
            return true;
        }
        int h;
        do {
            h = holders.get();
            if (h == 0) {
                return false;
            }
        } while (!holders.compareAndSet(h, h + 1));
        return true;
    }

    /** The count first, then the chunks (see the class comment). */
    private RealtimeSegment snapshot(final int epochDay) {
        final int n = published;
        final boolean sorted = timeSorted;
        return new RealtimeSegment(schema, symbols, index, counts, chunks, n, sorted, epochDay);
    }

    /**
     * Any thread, once: the owner drops the table (end of day, a schema change). With a pool, its
     * chunks go back as soon as no segment holds them; appending after this is a bug.
     */
    public void retire() {
        if (pool != null && retired.compareAndSet(false, true)) {
            unpin();
        }
    }

    /** One holder let go; the last gives the chunks back. */
    void unpin() {
        if (holders.decrementAndGet() == 0) {
            final Object[][] holder = chunks;
            chunks = new Object[types.length][1];
            pool.give(types, holder);
            if (index != null) {
                index.release();
            }
        }
    }
}
