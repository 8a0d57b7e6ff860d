package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Full-size column chunks ({@link ColumnStore#CHUNK_ROWS} rows) of retired RDB tables, handed to
 * the tables that grow next, so that a day's inserts after the first reuse the memory of the day
 * before instead of allocating and zeroing fresh arrays. A reused chunk is not cleared: a table
 * reads only the rows below its published count, every one of which it wrote itself.
 *
 * <p>When a chunk may come back: a {@link RealtimeTable} counts its holders, itself (until
 * {@link RealtimeTable#retire}) and every open segment a query took ({@link #pin}); its chunks come
 * here only when the count reaches zero, so a query that started before end of day reads the old
 * rows to its end however many new rows arrive meanwhile. A segment releases its hold on
 * {@code close()}, or, if its caller never closes it, once the garbage collector finds it
 * unreachable (a phantom reference, polled whenever a table asks for chunks or a segment is taken): a forgotten segment
 * delays reuse, it never makes a reader see another table's rows.
 *
 * <p>Threads: any thread may give (the last holder's); the writer thread takes column chunks, a query thread that
 * catches a sym index up takes its row lists; one lock guards the
 * free lists, taken once per 32K-row chunk row, never per update.
 */
public final class ChunkPool {
    /** Array kinds: long[], double[], int[], float[], short[], byte[]. */
    private static final int KINDS = 6;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<Object>[] free = new ArrayDeque[KINDS];
    private final long maxBytes;
    private final ReferenceQueue<RealtimeSegment> unreachable = new ReferenceQueue<>();
    /** Pins of open segments, kept reachable until released (a phantom reference must be). */
    private final Set<Pin> open = ConcurrentHashMap.newKeySet();
    private long bytes;
    private long reused;

    /** A pool without a size bound: it holds at most what the retired tables held. */
    public ChunkPool() {
        this(Long.MAX_VALUE);
    }

    /** @param maxBytes heap bytes of free chunks kept at most; chunks given beyond it are left to the GC */
    public ChunkPool(final long maxBytes) {
        this.maxBytes = maxBytes;
        for (int k = 0; k < KINDS; k++) {
            free[k] = new ArrayDeque<>();
        }
    }

    private static int kind(final ColumnType type) {
        return switch (type) {
            case TIMESTAMP, INT64 -> 0;
            case FLOAT64 -> 1;
            case SYMBOL, INT32 -> 2;
            case FLOAT32 -> 3;
            case INT16 -> 4;
            case BYTE, BOOL, CHAR -> 5;
        };
    }

    /**
     * One full-size chunk per column of {@code types}, all from the pool, or null (and nothing
     * taken) when the pool cannot serve every column. Releases the holds of unreachable segments first.
     */
    Object[] take(final ColumnType[] types) {
        // outside the lock: a released hold may give a table's chunks back, and its sym index's lists
        // (under that index's lock, which a catch-up holds while it takes lists from here)
        releaseUnreachable();
        return takeRow(types);
    }

    private synchronized Object[] takeRow(final ColumnType[] types) {
        final int[] need = new int[KINDS];
        for (final ColumnType t : types) {
            if (++need[kind(t)] > free[kind(t)].size()) {
                return null;
            }
        }
        final Object[] row = new Object[types.length];
        for (int c = 0; c < types.length; c++) {
            row[c] = free[kind(types[c])].pop();
            bytes -= ColumnStore.arrayBytes(types[c], ColumnStore.CHUNK_ROWS);
        }
        reused += types.length;
        return row;
    }

    /**
     * One full-size {@code int[]} chunk (contents undefined) for a block of a table's sym index, or
     * null when the pool has none: the index's row lists of a chunk are chunk-sized, so they come
     * from, and go back to, the same free list as the {@code int} columns' chunks.
     */
    synchronized int[] takeInts() {
        final ArrayDeque<Object> ints = free[kind(ColumnType.INT32)];
        if (ints.isEmpty()) {
            return null;
        }
        bytes -= ColumnStore.arrayBytes(ColumnType.INT32, ColumnStore.CHUNK_ROWS);
        reused++;
        return (int[]) ints.pop();
    }

    /** The full-size {@code int[]} chunks of a sym index whose table's last holder let go, kept while the pool stays within its size. */
    synchronized void giveInts(final int[][] arrays, final int count) {
        final long each = ColumnStore.arrayBytes(ColumnType.INT32, ColumnStore.CHUNK_ROWS);
        for (int i = 0; i < count && bytes + each <= maxBytes; i++) {
            if (arrays[i] != null && arrays[i].length == ColumnStore.CHUNK_ROWS) {
                free[kind(ColumnType.INT32)].push(arrays[i]);
                bytes += each;
            }
        }
    }

    /**
     * The full-size chunks of a table whose last holder let go ({@code holder[column][k]}; smaller first chunks are left to the GC),
     * kept a chunk row at a time (one chunk of every column, as {@link #take} hands them out) while the pool stays within its size.
     */
    synchronized void give(final ColumnType[] types, final Object[][] holder) {
        int rows = Integer.MAX_VALUE;
        long rowBytes = 0;
        for (int c = 0; c < types.length; c++) {
            rows = Math.min(rows, holder[c].length);
            rowBytes += ColumnStore.arrayBytes(types[c], ColumnStore.CHUNK_ROWS);
        }
        for (int k = 0; k < rows && bytes + rowBytes <= maxBytes; k++) {
            if (fullRow(types, holder, k)) {
                for (int c = 0; c < types.length; c++) {
                    free[kind(types[c])].push(holder[c][k]);
                }
                bytes += rowBytes;
            }
        }
    }

    private static boolean fullRow(final ColumnType[] types, final Object[][] holder, final int k) {
        for (int c = 0; c < types.length; c++) {
            if (holder[c][k] == null || java.lang.reflect.Array.getLength(holder[c][k]) != ColumnStore.CHUNK_ROWS) {
                return false;
            }
        }
        return true;
    }

    /** Heap bytes of the free chunks now. */
    public synchronized long bytes() {
        return bytes;
    }

    /** Chunks handed out again since the pool was made. */
    public synchronized long reused() {
        return reused;
    }

    /** A hold of {@code segment} on {@code table}'s chunks (the table's count already taken for it). */
    Pin pin(final RealtimeSegment segment, final RealtimeTable table) {
        // polled here too, not only when a table grows: queries on a quiet RDB (a dashboard, no feed) whose segments are
        // never closed would otherwise keep adding pins to the open set until the next chunk is taken
        releaseUnreachable();
        final Pin p = new Pin(segment, unreachable, table, open);
        open.add(p);
        return p;
    }

    private void releaseUnreachable() {
        Reference<? extends RealtimeSegment> r;
        while ((r = unreachable.poll()) != null) {
            ((Pin) r).release();
        }
    }

    /** One segment's hold on its table: released once, by {@code close()} or by the GC finding the segment unreachable. */
    static final class Pin extends PhantomReference<RealtimeSegment> {
        private final RealtimeTable table;
        private final Set<Pin> open;
        private final AtomicBoolean released = new AtomicBoolean();

        private Pin(final RealtimeSegment segment, final ReferenceQueue<RealtimeSegment> queue, final RealtimeTable table,
                    final Set<Pin> open) {
            super(segment, queue);
            this.table = table;
            this.open = open;
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                clear();
                open.remove(this);
                table.unpin();
            }
        }
    }
}
