package io.jtick.core.hdb;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Writes tables as a date partition ({@code .Q.dpft}): each table sorted by sym then time, with a
 * sym → row-range index, each column in its policy's encoding, in blocks of at most {@code blockBytes}
 * raw bytes for plain columns and smaller ones for encoded columns
 * ({@link #blockBytes(ColumnEncoding, int)}). Tables are read as {@link TableSegment}s (the RDB's day, or a loaded partition when
 * tiering re-encodes it): the sym column in ranges, every other column in sorted order as listed
 * rows (or ranges when the rows already are in order), a chunk at a time.
 *
 * <p>Atomic: the tables are written under {@code <root>/.tmp-<date>-<id>/}, every file and directory
 * fsynced (each file by one sync thread as soon as it is complete, so the disk writes one column
 * back while the writer threads build the next), then the directory is renamed to
 * {@code <root>/<date>} (one atomic rename). When the date already exists (an end of day redone,
 * a tier re-encode), each table is swapped in on its own: the old directory is renamed to
 * {@code <date>/.old-<table>-<id>}, the new one renamed into place, the old one deleted.
 * {@link PartitionStore#recover} finishes or undoes a swap a crash interrupted. A failed write
 * deletes its temporary directory and leaves what was visible as it was.
 */
public final class PartitionWriter {
    /** Default raw bytes per block (kdb's logical block size 2^17). */
    public static final int DEFAULT_BLOCK_BYTES = 128 * 1024;
    /**
     * Raw bytes per block of an lz4 or snappy column (the warm tier): a point or window read decodes
     * a block, so small ones keep random access cheap; scans decode every block either way.
     */
    public static final int FAST_CODEC_BLOCK_BYTES = 16 * 1024;
    /** Raw bytes per block of a zstd column (the cold tier): zstd gains more from a larger window. */
    public static final int ZSTD_BLOCK_BYTES = 32 * 1024;
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final Path root;
    private final EncodingPolicy policy;
    private final int blockBytes;
    private final int parallelism;
    private final WriteHook hook;

    /** Called after each column file is complete; tests use it to inject failures. */
    @FunctionalInterface
    public interface WriteHook {
        WriteHook NONE = file -> {
        };

        void afterColumn(Path file) throws IOException;
    }

    /**
     * What one table's write produced; {@code nanos} runs from the start of its sort to its meta
     * being written (the tables of one write overlap: the next is sorted while one is written).
     */
    public record TableWritten(String table, int rows, long rawBytes, long storedBytes, long nanos) {
    }

    /** What a write produced. */
    public record Written(LocalDate date, Path directory, List<TableWritten> tables, long nanos) {
        /** Raw column bytes written. */
        public long rawBytes() {
            return tables.stream().mapToLong(TableWritten::rawBytes).sum();
        }

        /** Bytes stored for column values. */
        public long storedBytes() {
            return tables.stream().mapToLong(TableWritten::storedBytes).sum();
        }
    }

    public PartitionWriter(final Path root, final EncodingPolicy policy) {
        this(root, policy, DEFAULT_BLOCK_BYTES, Math.min(4, Runtime.getRuntime().availableProcessors()), WriteHook.NONE);
    }

    public PartitionWriter(final Path root, final EncodingPolicy policy, final int blockBytes, final int parallelism,
        final WriteHook hook) {
        if (blockBytes < 64 || blockBytes > (1 << 26) || Integer.bitCount(blockBytes) != 1) {
            throw new IllegalArgumentException("block bytes must be a power of two in 64..64M [blockBytes=" + blockBytes + "]");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be positive [parallelism=" + parallelism + "]");
        }
        this.root = root;
        this.policy = policy;
        this.blockBytes = blockBytes;
        this.parallelism = parallelism;
        this.hook = hook;
    }

    public PartitionWriter withPolicy(final EncodingPolicy newPolicy) {
        return new PartitionWriter(root, newPolicy, blockBytes, parallelism, hook);
    }

    public PartitionWriter withHook(final WriteHook newHook) {
        return new PartitionWriter(root, policy, blockBytes, parallelism, newHook);
    }

    public Path root() {
        return root;
    }

    /** Writes {@code tables} as (part of) partition {@code date}; see the class comment. */
    public Written write(final LocalDate date, final List<? extends TableSegment> tables) throws IOException {
        final long start = System.nanoTime();
        Files.createDirectories(root);
        final String id = UUID.randomUUID().toString().substring(0, 8);
        final Path tmp = root.resolve(PartitionStore.TMP_PREFIX + date + "-" + id);
        Files.createDirectory(tmp);
        final List<TableWritten> written = new ArrayList<>();
        final Path target = root.resolve(date.toString());
        try (Syncer sync = new Syncer(); Workers workers = new Workers(parallelism)) {
            // one table ahead: the next table is sorted while this one's columns are written, and a
            // finished table's sort order is dropped before the one after is sorted
            PendingTable ahead = null;
            for (final TableSegment t : tables) {
                final Path dir = tmp.resolve(t.schema().name());
                if (Files.exists(dir)) {
                    throw new IllegalArgumentException("table given twice [table=" + t.schema().name() + "]");
                }
                final PendingTable next = startTable(dir, date, t, workers, sync);
                if (ahead != null) {
                    written.add(ahead.finish());
                }
                ahead = next;
            }
            if (ahead != null) {
                written.add(ahead.finish());
            }
            forceAll(sync, tmp, written);
            if (!Files.exists(target)) {
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                    fsync(root);
                    return new Written(date, target, List.copyOf(written), System.nanoTime() - start);
                } catch (final FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
                    // the date appeared meanwhile: swap table by table below
                }
            }
            for (final TableWritten w : written) {
                swapIn(tmp.resolve(w.table()), target, w.table(), id);
            }
            PartitionStore.deleteRecursively(tmp);
            return new Written(date, target, List.copyOf(written), System.nanoTime() - start);
        } catch (final IOException | RuntimeException | Error e) {
            try {
                PartitionStore.deleteRecursively(tmp);
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Re-encodes one loaded table with this writer's policy into a temporary copy and swaps it in
     * (the tiering step). The source stays readable throughout; callers reopen the new directory.
     */
    public TableWritten rewrite(final PartitionTable source) throws IOException {
        final String id = UUID.randomUUID().toString().substring(0, 8);
        final Path tmp = root.resolve(PartitionStore.TMP_PREFIX + source.date() + "-" + id);
        Files.createDirectories(tmp);
        try (Syncer sync = new Syncer(); Workers workers = new Workers(parallelism)) {
            final TableWritten w = startTable(tmp.resolve(source.name()), source.date(), source, workers, sync).finish();
            forceAll(sync, tmp, List.of(w));
            swapIn(tmp.resolve(source.name()), root.resolve(source.date().toString()), source.name(), id);
            PartitionStore.deleteRecursively(tmp);
            return w;
        } catch (final IOException | RuntimeException | Error e) {
            try {
                PartitionStore.deleteRecursively(tmp);
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Waits until every file handed to {@code sync} is on disk, then forces each table's directory and {@code tmp}. */
    private static void forceAll(final Syncer sync, final Path tmp, final List<TableWritten> tables) throws IOException {
        sync.await();
        for (final TableWritten t : tables) {
            fsync(tmp.resolve(t.table()));
        }
        fsync(tmp);
    }

    static void swapIn(final Path fresh, final Path dateDir, final String table, final String id) throws IOException {
        Files.createDirectories(dateDir);
        final Path live = dateDir.resolve(table);
        final Path old = dateDir.resolve(PartitionStore.OLD_PREFIX + table + "-" + id);
        final boolean replacing = Files.exists(live);
        if (replacing) {
            Files.move(live, old, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(fresh, live, StandardCopyOption.ATOMIC_MOVE);
        fsync(dateDir);
        if (replacing) {
            PartitionStore.deleteRecursively(old);
        }
    }

    /**
     * Starts one table's directory: sorts the table on the calling thread, then hands its columns
     * to {@code workers} (widest first) and returns; {@link PendingTable#finish} waits for them and
     * writes the sym ranges and the meta. Started one table ahead, the next table is sorted while
     * this one's columns are written, and the workers go from one table's columns to the next
     * without waiting. Each file
     * goes to {@code sync} as it is complete; the caller awaits {@code sync} and forces the
     * directory. No writer thread waits on a flush.
     */
    private PendingTable startTable(final Path dir, final LocalDate date, final TableSegment table, final Workers workers,
                                    final Syncer sync) throws IOException {
        final long start = System.nanoTime();
        Files.createDirectory(dir);
        final TableSchema schema = table.schema();
        final SortOrder order = SortOrder.of(table);
        final List<Integer> work = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            work.add(c);
        }
        work.sort(Comparator.comparingInt((Integer c) -> -schema.type(c).width()));
        final List<Future<TableMeta.ColumnMeta>> futures = new ArrayList<>();
        for (final int c : work) {
            futures.add(workers.submit(() -> writeColumn(dir, table, order, c, sync)));
        }
        return new PendingTable(dir, date, table, order, work, futures, sync, start);
    }

    /** A table whose columns are being written ({@link #startTable}). */
    private final class PendingTable {
        private final Path dir;
        private final LocalDate date;
        private final TableSegment table;
        private final SortOrder order;
        private final List<Integer> work;
        private final List<Future<TableMeta.ColumnMeta>> futures;
        private final Syncer sync;
        private final long start;

        PendingTable(final Path dir, final LocalDate date, final TableSegment table, final SortOrder order, final List<Integer> work,
                     final List<Future<TableMeta.ColumnMeta>> futures, final Syncer sync, final long start) {
            this.dir = dir;
            this.date = date;
            this.table = table;
            this.order = order;
            this.work = work;
            this.futures = futures;
            this.sync = sync;
            this.start = start;
        }

        /** Waits for the table's columns, then writes its sym ranges and meta. */
        TableWritten finish() throws IOException {
            final TableSchema schema = table.schema();
            final TableMeta.ColumnMeta[] metas = new TableMeta.ColumnMeta[schema.columnCount()];
            for (int i = 0; i < work.size(); i++) {
                metas[work.get(i)] = Workers.await(futures.get(i), schema.name());
            }
            order.ranges().write(dir.resolve(SymRanges.FILE));
            sync.file(dir.resolve(SymRanges.FILE));
            final TableMeta meta = new TableMeta(schema, date, table.rowCount(), blockBytes, List.of(metas));
            meta.write(dir.resolve(TableMeta.FILE));
            sync.file(dir.resolve(TableMeta.FILE));
            long raw = 0;
            long stored = 0;
            for (final TableMeta.ColumnMeta m : metas) {
                raw += m.rawBytes();
                stored += m.storedBytes();
            }
            return new TableWritten(schema.name(), table.rowCount(), raw, stored, System.nanoTime() - start);
        }
    }

    /** One column's write, returning its meta. */
    @FunctionalInterface
    private interface ColumnTask {
        TableMeta.ColumnMeta write() throws IOException;
    }

    /**
     * The column writer threads of one write ({@code parallelism} of them, shared by its tables);
     * with a parallelism of 1 each column is written on the calling thread as it is submitted.
     * Closing stops the threads and waits for them, so that a failed write deletes its temporary
     * directory only once no column is being written into it.
     */
    private static final class Workers implements AutoCloseable {
        private final ExecutorService pool;

        Workers(final int threads) {
            pool = threads <= 1 ? null : Executors.newFixedThreadPool(threads, new DefaultThreadFactory("jtick-partition-writer", true));
        }

        /** Writes the column on a worker, or at once on the calling thread (which then gets its failure first-hand). */
        Future<TableMeta.ColumnMeta> submit(final ColumnTask column) throws IOException {
            if (pool == null) {
                return CompletableFuture.completedFuture(column.write());
            }
            return pool.submit(column::write);
        }

        /** The column's meta, or what its writer threw. */
        static TableMeta.ColumnMeta await(final Future<TableMeta.ColumnMeta> column, final String table) throws IOException {
            try {
                return column.get();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing [table=" + table + "]", e);
            } catch (final ExecutionException e) {
                final Throwable cause = e.getCause();
                if (cause instanceof IOException io) {
                    throw io;
                }
                if (cause instanceof RuntimeException re) {
                    throw re;
                }
                if (cause instanceof Error err) {
                    throw err;
                }
                throw new IOException(cause);
            }
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.shutdownNow();
                awaitStopped(pool);
            }
        }
    }

    /**
     * Waits for a pool that was told to stop until its threads have ended: an interrupt of the
     * caller does not cut the wait short (it is kept for the caller), so that nothing still writes
     * into a directory the caller is about to delete.
     */
    private static void awaitStopped(final ExecutorService pool) {
        boolean interrupted = false;
        while (true) {
            try {
                if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private TableMeta.ColumnMeta writeColumn(final Path dir, final TableSegment table, final SortOrder order, final int c,
                                             final Syncer sync) throws IOException {
        final TableMeta.ColumnMeta meta = writeColumnFile(dir, table, order, c);
        sync.file(dir.resolve(meta.name()));
        return meta;
    }

    private TableMeta.ColumnMeta writeColumnFile(final Path dir, final TableSegment table, final SortOrder order, final int c)
        throws IOException {
        final ColumnDef def = table.schema().column(c);
        final ColumnType type = def.type();
        final int rows = table.rowCount();
        final ColumnEncoding wanted = policy.encoding(table.schema().name(), def).forType(type);
        final int blockRows = blockBytes(wanted, blockBytes) / type.width();
        final ColumnEncoding encoding = wanted.isAuto() ? EncodingChooser.choose(wanted, table, c, order.rows(), blockRows) : wanted;
        final Path file = dir.resolve(def.name());
        try (ColumnFileWriter w = new ColumnFileWriter(file, type, encoding, blockRows, rows, false)) {
            if (encoding.isPlain() && c != TableSchema.SYM && !order.identity() && !order.reordered()) {
                final long stored = PlainColumnScatter.write(w, table, c, order, blockBytes);
                hook.afterColumn(file);
                return new TableMeta.ColumnMeta(def.name(), type, encoding.toString(), (long) rows * type.width(), stored);
            }
            final UnsafeBuffer block = w.block();
            final ColumnChunk chunk = new ColumnChunk();
            for (int at = 0, n; at < rows; at += n) {
                n = blockEnd(order.ranges(), at, rows, blockRows) - at;
                if (c == TableSchema.SYM) {
                    order.fillSymCodes(at, n, block);
                } else {
                    copyRows(table, c, order.rows(), at, n, chunk, block);
                }
                w.writeBlock(n);
            }
            final long stored = w.finish();
            hook.afterColumn(file);
            return new TableMeta.ColumnMeta(def.name(), type, encoding.toString(), (long) rows * type.width(), stored);
        }
    }

    /**
     * Copies the values of {@code count} rows of a column into {@code dst} from byte 0 as
     * little-endian values of the column's width: the rows {@code rows[from..from+count)}, or rows
     * {@code [from, from+count)} when {@code rows} is null. Reads go through the segment at most
     * {@link TableSegment#chunkRows()} rows at a time into {@code chunk}; each chunk is one bulk
     * copy (a byte-order conversion only on a big-endian machine).
     */
    static void copyRows(final TableSegment table, final int column, final int[] rows, final int from, final int count,
                         final ColumnChunk chunk, final UnsafeBuffer dst) {
        final ColumnType type = table.schema().type(column);
        final int width = type.width();
        if (from < 0 || count < 0 || (long) count * width > dst.capacity()) {
            throw new IndexOutOfBoundsException("rows do not fit [table=" + table.schema().name() + ", from=" + from + ", count=" + count
                + ", capacity=" + dst.capacity() + "]");
        }
        final int step = Math.max(1, table.chunkRows());
        for (int done = 0; done < count;) {
            final int k = Math.min(step, count - done);
            if (rows == null) {
                table.read(column, from + done, k, chunk);
            } else {
                table.read(column, rows, from + done, k, chunk);
            }
            final Object values = values(type, chunk);
            if (NATIVE_LITTLE_ENDIAN) {
                UnsafeApi.copyMemory(values, UnsafeApi.arrayBaseOffset(values.getClass()) + (long) chunk.offset() * width,
                    dst.byteArray(), dst.addressOffset() + (long) done * width, (long) k * width);
            } else {
                putLittleEndian(type, chunk, k, dst, done * width);
            }
            done += k;
        }
    }

    /** The chunk's array for a column type. */
    private static Object values(final ColumnType type, final ColumnChunk chunk) {
        return switch (type) {
            case TIMESTAMP, INT64 -> chunk.longs();
            case FLOAT64 -> chunk.doubles();
            case SYMBOL, INT32 -> chunk.ints();
            case FLOAT32 -> chunk.floats();
            case INT16 -> chunk.shorts();
            default -> chunk.bytes();
        };
    }

    private static void putLittleEndian(final ColumnType type, final ColumnChunk chunk, final int k, final UnsafeBuffer dst,
                                        final int at) {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        final int o = chunk.offset();
        for (int i = 0; i < k; i++) {
            switch (type) {
                case TIMESTAMP, INT64 -> dst.putLong(at + (i << 3), chunk.longs()[o + i], le);
                case FLOAT64 -> dst.putDouble(at + (i << 3), chunk.doubles()[o + i], le);
                case SYMBOL, INT32 -> dst.putInt(at + (i << 2), chunk.ints()[o + i], le);
                case FLOAT32 -> dst.putFloat(at + (i << 2), chunk.floats()[o + i], le);
                case INT16 -> dst.putShort(at + (i << 1), chunk.shorts()[o + i], le);
                default -> dst.putByte(at + i, chunk.bytes()[o + i]);
            }
        }
    }

    /**
     * Raw bytes per block of a column in {@code encoding} when the table's blocks are {@code tableBlockBytes}:
     * plain columns are mapped and read in place, their blocks are only checksum units
     * ({@code tableBlockBytes}); lz4/snappy columns use at most {@link #FAST_CODEC_BLOCK_BYTES}, zstd
     * at most {@link #ZSTD_BLOCK_BYTES}, a transform without a codec the fast size.
     */
    public static int blockBytes(final ColumnEncoding encoding, final int tableBlockBytes) {
        if (encoding.isPlain()) {
            return tableBlockBytes;
        }
        return Math.min(tableBlockBytes, encoding.codec() == Codec.ZSTD ? ZSTD_BLOCK_BYTES : FAST_CODEC_BLOCK_BYTES);
    }

    /**
     * Where the block starting at row {@code start} ends: every sym's last row ends a block, so its
     * last value is in the block index (storage format version 2) and a one-sym read decodes only its
     * own blocks. A sym longer than what is left of a block gets blocks of equal size (at most
     * {@code maxRows}) that end at its end; shorter syms share a block, cut at the first sym end
     * once the block holds an eighth of {@code maxRows}, or else at the last sym end that fits.
     */
    public static int blockEnd(final SymRanges ranges, final int start, final int rows, final int maxRows) {
        final int max = (int) Math.min(rows, (long) start + maxRows);
        final int min = (int) Math.min(rows, (long) start + Math.max(1, maxRows / 8));
        final int sym = firstEndingAtOrAfter(ranges, start + 1);
        if (sym == ranges.count()) {
            return max;
        }
        final int symEnd = Math.min(rows, ranges.to(sym));
        if (symEnd > max) {
            final long left = symEnd - start;
            final long blocks = (left + maxRows - 1) / maxRows;
            return (int) (start + (left + blocks - 1) / blocks);
        }
        final int j = firstEndingAtOrAfter(ranges, min);
        if (j < ranges.count() && ranges.to(j) <= max) {
            return ranges.to(j);
        }
        return j > sym ? ranges.to(j - 1) : symEnd;
    }

    /** The first sym whose rows end at or after {@code row} (syms in row order), or the sym count. */
    private static int firstEndingAtOrAfter(final SymRanges ranges, final int row) {
        int lo = 0;
        int hi = ranges.count();
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (ranges.to(mid) < row) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Forces complete files to disk on a thread of its own, in the order they were handed over,
     * while the writer threads go on; {@link #await} returns once every file handed over so far is
     * on disk and reports the first failure. Closing drops the files not yet forced, interrupts the
     * one being forced and waits for the thread to end (a write that failed does not force the rest
     * of its files).
     */
    private static final class Syncer implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(new DefaultThreadFactory("jtick-partition-sync", true));
        private final List<Future<?>> pending = new ArrayList<>();

        synchronized void file(final Path file) {
            pending.add(thread.submit(() -> {
                fsyncFile(file);
                return null;
            }));
        }

        void await() throws IOException {
            final List<Future<?>> all;
            synchronized (this) {
                all = List.copyOf(pending);
            }
            for (final Future<?> f : all) {
                try {
                    f.get();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while forcing the partition's files to disk", e);
                } catch (final ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException(e.getCause());
                }
            }
        }

        @Override
        public void close() {
            thread.shutdownNow();
            awaitStopped(thread);
        }
    }

    static void fsync(final Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    static void fsyncFile(final Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /**
     * The row order of a partition: rows grouped by sym (syms ascending by name), by time within a
     * sym, arrival order among equal times (a stable counting sort, then a stable merge sort of any
     * sym whose times arrived out of order). The permutation itself ({@link #rows()}) is built only
     * when a writer asks for it: a plain column is written by {@link PlainColumnScatter} from the
     * sym ranks alone.
     */
    static final class SortOrder {
        private final TableSegment table;
        private final SymRanges ranges;
        private final int[] rankOfId;
        private final boolean identity;
        private final boolean reordered;
        private int[] rows;
        private boolean rowsBuilt;

        private SortOrder(final TableSegment table, final SymRanges ranges, final int[] rankOfId, final boolean identity,
                          final boolean reordered, final int[] rows) {
            this.table = table;
            this.ranges = ranges;
            this.rankOfId = rankOfId;
            this.identity = identity;
            this.reordered = reordered;
            this.rows = rows;
            this.rowsBuilt = rows != null || identity;
        }

        SymRanges ranges() {
            return ranges;
        }

        /** Sym rank (its code in {@link #ranges()}) of each sym id of the segment; -1 for ids with no rows. */
        int[] rankOfId() {
            return rankOfId;
        }

        /** True when the rows already are in partition order (a sym-parted segment): no permutation. */
        boolean identity() {
            return identity;
        }

        /** True when some sym's rows are not in arrival order within the sym (its times arrived out of order and were sorted). */
        boolean reordered() {
            return reordered;
        }

        /** Row of the segment at each position of the partition, or null when {@link #identity()}; built on first use. */
        synchronized int[] rows() {
            if (!rowsBuilt) {
                rows = place(table, rankOfId, ranges);
                rowsBuilt = true;
            }
            return rows;
        }

        /**
         * Two passes over the sym column (count per sym id, then rank order check), and a check of
         * time order within each sym: none when the segment says its time column is sorted, one
         * sequential pass when its rows already are in sym order, else one over the time column in
         * the new order (the permutation is built then) after which only the syms whose times
         * arrived out of order are read again and sorted.
         */
        static SortOrder of(final TableSegment table) {
            final int n = table.rowCount();
            final int limit = table.symIdLimit();
            final int step = Math.max(1, table.chunkRows());
            final ColumnChunk chunk = new ColumnChunk();
            final int[] counts = new int[Math.max(0, limit)];
            int distinct = 0;
            for (int at = 0; at < n; at += step) {
                final int k = Math.min(step, n - at);
                table.read(TableSchema.SYM, at, k, chunk);
                final int[] ids = chunk.ints();
                final int o = chunk.offset();
                for (int i = 0; i < k; i++) {
                    final int id = ids[o + i];
                    if (id < 0 || id >= limit) {
                        throw new IllegalArgumentException("sym id out of range [table=" + table.schema().name() + ", row=" + (at + i)
                            + ", id=" + id + ", limit=" + limit + "]");
                    }
                    if (counts[id]++ == 0) {
                        distinct++;
                    }
                }
            }
            final Integer[] ids = new Integer[distinct];
            final String[] nameOf = new String[counts.length];
            int k = 0;
            for (int id = 0; id < counts.length; id++) {
                if (counts[id] > 0) {
                    ids[k++] = id;
                    nameOf[id] = table.symName(id);
                }
            }
            Arrays.sort(ids, Comparator.comparing((Integer id) -> nameOf[id]));
            final String[] names = new String[distinct];
            final int[] from = new int[distinct];
            final int[] to = new int[distinct];
            final int[] rankOfId = new int[counts.length];
            Arrays.fill(rankOfId, -1);
            int at = 0;
            for (int i = 0; i < distinct; i++) {
                final int id = ids[i];
                if (i > 0 && names[i - 1].equals(nameOf[id])) {
                    throw new IllegalArgumentException("two sym ids share a name [sym=" + nameOf[id] + "]");
                }
                names[i] = nameOf[id];
                rankOfId[id] = i;
                from[i] = at;
                at += counts[id];
                to[i] = at;
            }
            final SymRanges ranges = new SymRanges(names, from, to);
            boolean identity = true;
            int last = 0;
            for (int a = 0; a < n && identity; a += step) {
                final int m = Math.min(step, n - a);
                table.read(TableSchema.SYM, a, m, chunk);
                final int[] sym = chunk.ints();
                final int o = chunk.offset();
                for (int i = 0; i < m; i++) {
                    final int rank = rankOfId[sym[o + i]];
                    if (rank < last) {
                        identity = false;
                        break;
                    }
                    last = rank;
                }
            }
            if (table.timeSorted()) {
                return new SortOrder(table, ranges, rankOfId, identity, false, null);
            }
            final int[] rows = identity ? null : place(table, rankOfId, ranges);
            final boolean[] unsorted = new boolean[distinct];
            boolean anyUnsorted = false;
            int s = 0;
            long prev = Long.MIN_VALUE;
            for (int a = 0; a < n; a += step) {
                final int m = Math.min(step, n - a);
                if (identity) {
                    table.read(TableSchema.TIME, a, m, chunk);
                } else {
                    table.read(TableSchema.TIME, rows, a, m, chunk);
                }
                final long[] time = chunk.longs();
                final int o = chunk.offset();
                for (int i = 0; i < m; i++) {
                    while (a + i >= to[s]) {
                        s++;
                        prev = Long.MIN_VALUE;
                    }
                    final long t = time[o + i];
                    if (t < prev) {
                        unsorted[s] = true;
                        anyUnsorted = true;
                    }
                    prev = t;
                }
            }
            if (!anyUnsorted) {
                return new SortOrder(table, ranges, rankOfId, identity, false, rows);
            }
            final int[] sorted = rows != null ? rows : identityRows(n);
            for (int i = 0; i < distinct; i++) {
                if (unsorted[i]) {
                    sortByTime(table, sorted, from[i], to[i], chunk);
                }
            }
            return new SortOrder(table, ranges, rankOfId, false, true, sorted);
        }

        /** The permutation: a stable counting sort of the rows by sym rank. */
        private static int[] place(final TableSegment table, final int[] rankOfId, final SymRanges ranges) {
            final int n = table.rowCount();
            final int step = Math.max(1, table.chunkRows());
            final ColumnChunk chunk = new ColumnChunk();
            final int[] next = new int[ranges.count()];
            for (int r = 0; r < next.length; r++) {
                next[r] = ranges.from(r);
            }
            final int[] rows = new int[n];
            for (int a = 0; a < n; a += step) {
                final int m = Math.min(step, n - a);
                table.read(TableSchema.SYM, a, m, chunk);
                final int[] sym = chunk.ints();
                final int o = chunk.offset();
                for (int i = 0; i < m; i++) {
                    rows[next[rankOfId[sym[o + i]]]++] = a + i;
                }
            }
            return rows;
        }

        private static int[] identityRows(final int n) {
            final int[] rows = new int[n];
            for (int i = 0; i < n; i++) {
                rows[i] = i;
            }
            return rows;
        }

        /** Writes the sorted sym codes of rows {@code [at, at + n)} into {@code dst}. */
        void fillSymCodes(final int at, final int n, final UnsafeBuffer dst) {
            int lo = 0;
            int hi = ranges.count() - 1;
            while (lo < hi) {
                final int mid = (lo + hi + 1) >>> 1;
                if (ranges.from(mid) <= at) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            int k = lo;
            for (int i = 0; i < n; i++) {
                final int r = at + i;
                while (r >= ranges.to(k)) {
                    k++;
                }
                dst.putInt(i << 2, k, ByteOrder.LITTLE_ENDIAN);
            }
        }

        /** Stable merge sort of {@code rows[lo, hi)} by the rows' times (read through the segment). */
        private static void sortByTime(final TableSegment table, final int[] rows, final int lo, final int hi, final ColumnChunk chunk) {
            final int n = hi - lo;
            final long[] time = new long[n];
            final int step = Math.max(1, table.chunkRows());
            for (int a = 0; a < n; a += step) {
                final int m = Math.min(step, n - a);
                table.read(TableSchema.TIME, rows, lo + a, m, chunk);
                System.arraycopy(chunk.longs(), chunk.offset(), time, a, m);
            }
            final int[] r2 = new int[n];
            final long[] t2 = new long[n];
            for (int width = 1; width < n; width <<= 1) {
                for (int left = 0; left < n; left += width << 1) {
                    final int mid = Math.min(left + width, n);
                    final int right = Math.min(left + (width << 1), n);
                    int i = left;
                    int j = mid;
                    int o = left;
                    while (i < mid && j < right) {
                        if (time[j] < time[i]) {
                            t2[o] = time[j];
                            r2[o++] = rows[lo + j++];
                        } else {
                            t2[o] = time[i];
                            r2[o++] = rows[lo + i++];
                        }
                    }
                    while (i < mid) {
                        t2[o] = time[i];
                        r2[o++] = rows[lo + i++];
                    }
                    while (j < right) {
                        t2[o] = time[j];
                        r2[o++] = rows[lo + j++];
                    }
                }
                System.arraycopy(r2, 0, rows, lo, n);
                System.arraycopy(t2, 0, time, 0, n);
            }
        }
    }
}
