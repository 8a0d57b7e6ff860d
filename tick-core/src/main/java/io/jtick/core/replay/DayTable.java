package io.jtick.core.replay;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One table of one date as a replay reads it: the partition's selected syms in sym order, each
 * narrowed to the request's time-of-day window (row range {@code [lo, hi)}), and where their
 * columns' raw values lie in memory while some reader of the stream is inside this date
 * ({@link #enter}): row r of column c at {@code address(c) + r × width}, so a window is gathered
 * straight from there. Plain columns are read in place from the partition's memory map (their
 * blocks checksummed on entry). A compressed column is decoded once, on entry, into a scratch file
 * of the column's raw values at the partition's row numbers ({@link ScratchPool}: a sparse file,
 * memory-mapped, its name unlinked at once, so the page cache holds it and nothing is left on disk
 * after a crash; kept a while after {@link #leave} for the next date): only the selected ranges are
 * written, so only the blocks holding them are decoded; written through its channel from a buffer
 * per decoding thread, not through the map, whose page faults cost more.
 * The decoding is cut into pieces (a column's rows, a million at a time) that the entering thread
 * and the server's decoder threads take in turn, so a date decodes on every core. Readers of every
 * consumer of the stream share it.
 */
final class DayTable {
    /** Rows of one column one decoding piece covers. */
    private static final int PIECE_ROWS = 1 << 20;
    /** Decoder threads that may help the entering thread with one date. */
    private static final int DECODE_HELPERS = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    final int tableIndex;
    final StoredTable partition;
    final TableSchema schema;
    /** Partition sym code of each selected sym that has rows in the window, ascending. */
    final int[] codes;
    final int[] lo;
    final int[] hi;
    final long rows;
    /** ASCII bytes of each sym by partition code (null for syms not selected). */
    final byte[][] symBytes;
    private final boolean[] compressed;
    /** Per column, where its raw values lie while a reader is inside this date (see the class comment), else null. */
    private volatile long[] addresses;
    /** Per compressed column, its decoded values while a reader is inside this date (from {@link #pool}), else null. */
    private ScratchPool.Scratch[] scratch;
    private ScratchPool pool;
    private int users;

    private DayTable(final int tableIndex, final StoredTable partition, final int[] codes, final int[] lo, final int[] hi) {
        this.tableIndex = tableIndex;
        this.partition = partition;
        this.schema = partition.schema();
        this.codes = codes;
        this.lo = lo;
        this.hi = hi;
        long n = 0;
        for (int k = 0; k < codes.length; k++) {
            n += hi[k] - lo[k];
        }
        this.rows = n;
        final SymRanges ranges = partition.syms();
        this.symBytes = new byte[ranges.count()][];
        for (final int c : codes) {
            symBytes[c] = ranges.name(c).getBytes(StandardCharsets.US_ASCII);
        }
        this.compressed = new boolean[schema.columnCount()];
        for (int c = 0; c < compressed.length; c++) {
            // read in place only where the file's little-endian values are this machine's order; else decoded like the rest
            compressed[c] = c != TableSchema.SYM && !(partition.mapped(c) && NATIVE_LE) && partition.rowCount() > 0;
        }
    }

    /**
     * The selected syms of {@code partition} ({@code syms} null = all), each narrowed to rows with
     * {@code fromNanos <= time < toNanos} by binary search on its time range.
     */
    static DayTable open(final int tableIndex, final StoredTable partition, final Set<String> syms, final long fromNanos,
                         final long toNanos) {
        final SymRanges ranges = partition.syms();
        int[] selected;
        if (syms == null) {
            selected = new int[ranges.count()];
            for (int k = 0; k < selected.length; k++) {
                selected[k] = k;
            }
        } else {
            selected = new int[syms.size()];
            int n = 0;
            for (final String s : syms) {
                final int code = ranges.code(s);
                if (code >= 0) {
                    selected[n++] = code;
                }
            }
            selected = Arrays.copyOf(selected, n);
            Arrays.sort(selected);
        }
        final int[] codes = new int[selected.length];
        final int[] lo = new int[selected.length];
        final int[] hi = new int[selected.length];
        int n = 0;
        for (final int code : selected) {
            int a = ranges.from(code);
            int b = ranges.to(code);
            if (fromNanos != Long.MIN_VALUE) {
                a = partition.lowerBound(a, b, fromNanos);
            }
            if (toNanos != Long.MAX_VALUE) {
                b = partition.lowerBound(a, b, toNanos);
            }
            if (b > a) {
                codes[n] = code;
                lo[n] = a;
                hi[n] = b;
                n++;
            }
        }
        return new DayTable(tableIndex, partition, Arrays.copyOf(codes, n), Arrays.copyOf(lo, n), Arrays.copyOf(hi, n));
    }

    LocalDate date() {
        return partition.date();
    }

    /**
     * A reader starts reading this date: the first one checksums the plain columns' selected rows and
     * decodes the compressed columns' into scratch, on this thread and on {@code decoders} (null: here only).
     */
    synchronized void enter(final ScratchPool scratchPool, final Executor decoders) {
        if (users++ > 0 || rows == 0) {
            return;
        }
        final long[] at = new long[compressed.length];
        final ScratchPool.Scratch[] scratch = new ScratchPool.Scratch[compressed.length];
        try {
            for (int c = 0; c < compressed.length; c++) {
                if (c == TableSchema.SYM) {
                    continue;
                }
                if (!compressed[c]) {
                    for (int k = 0; k < codes.length; k++) {
                        at[c] = partition.address(c, lo[k], hi[k]);
                    }
                } else {
                    scratch[c] = scratchPool.acquire(date() + "-" + schema.name() + "-" + schema.column(c).name(),
                        (long) partition.rowCount() * schema.type(c).width());
                    at[c] = scratch[c].address;
                }
            }
            decode(scratch, decoders);
        } catch (final IOException | RuntimeException | Error e) {
            users--;
            for (final ScratchPool.Scratch s : scratch) {
                if (s != null) {
                    scratchPool.release(s);
                }
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot decode to the replay scratch [table=" + schema.name() + ", date=" + date()
                    + "]: " + io.getMessage(), io);
            }
            if (e instanceof Error err) {
                throw err;
            }
            throw (RuntimeException) e;
        }
        this.pool = scratchPool;
        this.scratch = scratch;
        addresses = at;
    }

    /** A reader is done with this date: the last one gives the decoded columns' scratch back. */
    synchronized void leave() {
        if (users == 0 || --users > 0) {
            return;
        }
        addresses = null;
        if (scratch != null) {
            for (final ScratchPool.Scratch s : scratch) {
                if (s != null) {
                    pool.release(s);
                }
            }
            scratch = null;
        }
    }

    /** Bytes of decoded scratch this date holds now. */
    synchronized long scratchBytes() {
        long n = 0;
        if (scratch != null) {
            for (final ScratchPool.Scratch s : scratch) {
                n += s == null ? 0 : s.bytes;
            }
        }
        return n;
    }

    /**
     * Decodes the compressed columns' selected rows into their scratch at {@code at}: pieces of at most
     * {@link #PIECE_ROWS} rows of one column, columns taken in turn (a format that reads one column on
     * one thread at a time then decodes two at once), by this thread and as many decoder threads as
     * there are pieces left; returns when every piece is written, throwing the first failure.
     */
    private void decode(final ScratchPool.Scratch[] scratch, final Executor decoders) {
        final List<long[]> pieces = new ArrayList<>();
        for (int k = 0; k < codes.length;) {
            // adjacent syms' row ranges form one run of rows
            int end = k + 1;
            while (end < codes.length && lo[end] == hi[end - 1]) {
                end++;
            }
            for (int from = lo[k]; from < hi[end - 1]; from += PIECE_ROWS) {
                for (int c = 0; c < compressed.length; c++) {
                    if (compressed[c]) {
                        pieces.add(new long[] {c, from, Math.min(PIECE_ROWS, hi[end - 1] - from)});
                    }
                }
            }
            k = end;
        }
        if (pieces.isEmpty()) {
            return;
        }
        final Pieces work = new Pieces(pieces, scratch);
        if (decoders != null) {
            for (int h = 1; h < pieces.size() && h <= DECODE_HELPERS; h++) {
                try {
                    decoders.execute(work::run);
                } catch (final RejectedExecutionException e) {
                    break;
                }
            }
        }
        work.run();
        work.await();
    }

    /** The pieces of one date's decoding, taken in turn by whichever threads run {@link #run}. */
    private final class Pieces {
        private final List<long[]> pieces;
        private final ScratchPool.Scratch[] scratch;
        private final AtomicInteger next = new AtomicInteger();
        /** The first piece's failure: an exception or an error (out of direct memory), so that every piece still ends. */
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private int finished;

        Pieces(final List<long[]> pieces, final ScratchPool.Scratch[] scratch) {
            this.pieces = pieces;
            this.scratch = scratch;
        }

        /**
         * Takes pieces until none is left: each decoded into this thread's buffer and written to its column's
         * scratch file (a write into the page cache costs less than a page fault per page of a mapping written
         * in place); readers then map those pages.
         */
        void run() {
            ByteBuffer buf = null;
            try {
                for (int i; (i = next.getAndIncrement()) < pieces.size();) {
                    final long[] p = pieces.get(i);
                    final int c = (int) p[0];
                    try {
                        if (failure.get() == null) {
                            if (buf == null) {
                                buf = ByteBuffer.allocateDirect(PIECE_ROWS * Long.BYTES);
                            }
                            write(c, (int) p[1], (int) p[2], buf);
                        }
                    } catch (final RuntimeException | Error e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        synchronized (this) {
                            if (++finished == pieces.size()) {
                                notifyAll();
                            }
                        }
                    }
                }
            } finally {
                if (buf != null) {
                    BufferUtil.free(buf);
                }
            }
        }

        private void write(final int column, final int from, final int count, final ByteBuffer buf) {
            final int width = schema.type(column).width();
            partition.copyRowsTo(column, from, count, BufferUtil.address(buf));
            buf.clear().limit(count * width);
            long position = (long) from * width;
            try {
                while (buf.hasRemaining()) {
                    position += scratch[column].file.write(buf, position);
                }
            } catch (final IOException e) {
                throw new UncheckedIOException("cannot write the replay scratch [table=" + schema.name() + ", date=" + date()
                    + ", column=" + schema.column(column).name() + "]: " + e.getMessage(), e);
            }
        }

        /** Waits for the pieces other threads took (every piece is taken once the caller's {@link #run} returns). */
        void await() {
            boolean interrupted = false;
            synchronized (this) {
                while (finished < pieces.size()) {
                    try {
                        wait();
                    } catch (final InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            final Throwable e = failure.get();
            if (e instanceof Error err) {
                throw err;
            }
            if (e != null) {
                throw (RuntimeException) e;
            }
        }
    }

    /**
     * Where column {@code column}'s raw values lie (row r at + r × width; a reader inside this date). Not the sym
     * column's: a selected sym's rows all hold its code, so the sym column is neither decoded nor read.
     */
    long address(final int column) {
        return addresses[column];
    }

    /** Time of a row (a reader inside this date). */
    long time(final int row) {
        return UnsafeApi.getLong(null, addresses[TableSchema.TIME] + ((long) row << 3));
    }

    ColumnType type(final int column) {
        return schema.type(column);
    }
}
