package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.hdb.format.TableMeta;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Future;

/**
 * Writes tables as a date partition ({@code .Q.dpft}): each table sorted by sym then time
 * ({@link SortOrder}), with a sym → row-range index, each column in its policy's encoding
 * ({@link ColumnWriter}), in blocks of at most {@code blockBytes} raw bytes for plain columns and
 * smaller ones for encoded columns ({@link BlockCuts#blockBytes}). Tables are read as
 * {@link TableSegment}s (the RDB's day, or a loaded partition when tiering re-encodes it): the sym
 * column in ranges, every other column in sorted order as listed rows (or ranges when the rows
 * already are in order), a chunk at a time.
 *
 * <p>Atomic: the tables are written into a {@link PartitionStore.Staging} directory
 * {@code <root>/.tmp-<date>-<id>/}, every file and directory fsynced (each file by the sync thread
 * of the {@link WriterPool} as soon as it is complete, so the disk writes one column back while
 * the writer threads build the next), then the directory is renamed to {@code <root>/<date>} (one
 * atomic rename). When the date already exists (an end of day redone, a tier re-encode), each
 * table is swapped in on its own: the old directory is renamed to {@code <date>/.old-<table>-<id>},
 * the new one renamed into place, the old one deleted. {@link PartitionStore#recover} finishes or
 * undoes a swap a crash interrupted. A failed write deletes its staging directory and leaves what
 * was visible as it was.
 *
 * <p>Column files go to the device with direct I/O where the file system takes it when asked
 * ({@link DirectIo}: the RDB's write-down asks {@code AUTO} by default; the constructors without it
 * write buffered): the same bytes, without the kernel's copy into the page cache, a plain column
 * built whole in direct memory and written by an I/O thread while its writer thread builds the
 * next; forced before the rename as buffered files are (for the file's metadata and the device's cache).
 */
public final class PartitionWriter {
    /** Default raw bytes per block (kdb's logical block size 2^17). */
    public static final int DEFAULT_BLOCK_BYTES = 128 * 1024;

    private final Path root;
    private final EncodingPolicy policy;
    private final int blockBytes;
    private final int parallelism;
    private final WriteHook hook;
    private final ColumnWriter columns;
    private final DirectIo directIo;

    /**
     * Called after each column file is built, on its writer thread (with direct I/O a whole plain
     * column's write may still be in flight on an I/O thread; the file's force waits for it); tests
     * use it to inject failures.
     */
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
        this(root, policy, blockBytes, parallelism, hook, DirectIo.OFF);
    }

    /**
     * @param directIo whether column files are written with direct I/O ({@link DirectIo}; the other constructors write
     *                 buffered: tiering and imports rewrite encoded columns, which gain nothing from it, bench-jmh/README.md)
     */
    public PartitionWriter(final Path root, final EncodingPolicy policy, final int blockBytes, final int parallelism,
        final WriteHook hook, final DirectIo directIo) {
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
        this.columns = new ColumnWriter(policy, blockBytes);
        this.directIo = directIo;
    }

    public PartitionWriter withPolicy(final EncodingPolicy newPolicy) {
        return new PartitionWriter(root, newPolicy, blockBytes, parallelism, hook, directIo);
    }

    public PartitionWriter withHook(final WriteHook newHook) {
        return new PartitionWriter(root, policy, blockBytes, parallelism, newHook, directIo);
    }

    public PartitionWriter withDirectIo(final DirectIo newDirectIo) {
        return new PartitionWriter(root, policy, blockBytes, parallelism, hook, newDirectIo);
    }

    public DirectIo directIo() {
        return directIo;
    }

    public Path root() {
        return root;
    }

    /** Writes {@code tables} as (part of) partition {@code date}; see the class comment. */
    public Written write(final LocalDate date, final List<? extends TableSegment> tables) throws IOException {
        final long start = System.nanoTime();
        final List<TableWritten> written = new ArrayList<>();
        try (PartitionStore.Staging stage = PartitionStore.stage(root, date); WriterPool pool = new WriterPool(parallelism)) {
            // one table ahead: the next table is sorted while this one's columns are written, and a
            // finished table's sort order is dropped before the one after is sorted
            PendingTable ahead = null;
            final int align = directIo.alignment(root);
            for (final TableSegment t : tables) {
                final Path dir = stage.table(t.schema().name());
                if (Files.exists(dir)) {
                    throw new IllegalArgumentException("table given twice [table=" + t.schema().name() + "]");
                }
                final PendingTable next = startTable(dir, date, t, pool, align);
                if (ahead != null) {
                    written.add(ahead.finish());
                }
                ahead = next;
            }
            if (ahead != null) {
                written.add(ahead.finish());
            }
            pool.awaitSynced();
            stage.force(names(written));
            if (!stage.publish()) {
                // the date exists (or appeared meanwhile): swap table by table
                for (final TableWritten w : written) {
                    stage.swapIn(w.table());
                }
                stage.close();
            }
            return new Written(date, stage.target(), List.copyOf(written), System.nanoTime() - start);
        }
    }

    /**
     * Re-encodes one loaded table with this writer's policy into a staging copy and swaps it in
     * (the tiering step). The source stays readable throughout; callers reopen the new directory.
     */
    public TableWritten rewrite(final StoredTable source) throws IOException {
        try (PartitionStore.Staging stage = PartitionStore.stage(root, source.date()); WriterPool pool = new WriterPool(parallelism)) {
            final TableWritten w = startTable(stage.table(source.name()), source.date(), source, pool, directIo.alignment(root)).finish();
            pool.awaitSynced();
            stage.force(List.of(w.table()));
            stage.swapIn(source.name());
            stage.close();
            return w;
        }
    }

    private static List<String> names(final List<TableWritten> tables) {
        final List<String> out = new ArrayList<>(tables.size());
        for (final TableWritten t : tables) {
            out.add(t.table());
        }
        return out;
    }

    /**
     * Starts one table's directory: sorts the table on the calling thread (with direct I/O, while the
     * writer threads allocate the column buffers), then hands its columns to the writer threads of
     * {@code pool} (the sym column first, then widest first), works out the scatter stages ahead of
     * them ({@link ScatterStages#prepareTargets}) and returns; {@link PendingTable#finish}
     * waits for them and writes the sym ranges and the meta. Started one table ahead, the next table
     * is sorted while this one's columns are written, and the writer threads go from one table's
     * columns to the next without waiting. Each file goes to the pool's sync thread as it is
     * complete; the caller awaits it and forces the directory. No writer thread waits on a flush.
     */
    private PendingTable startTable(final Path dir, final LocalDate date, final TableSegment table, final WriterPool pool,
                                    final int align) throws IOException {
        final long start = System.nanoTime();
        Files.createDirectory(dir);
        final TableSchema schema = table.schema();
        if (align > 0 && table.timeSorted()) {
            // a time-sorted table is not reordered, so its plain columns will be scattered whole (unless it is already in
            // partition order, which the sort below tells): the writer threads allocate their buffers meanwhile
            pool.preallocate(columns.wholeBufferBytes(table, Math.max(0, table.symIdLimit()), align), align, schema.columnCount());
        }
        final SortOrder order = SortOrder.of(table);
        final List<Integer> work = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            work.add(c);
        }
        // the sym column first (no sort positions needed: the device gets its first file early), then widest first
        work.sort(Comparator.comparingInt((Integer c) -> c == TableSchema.SYM ? Integer.MIN_VALUE : -schema.type(c).width()));
        final List<Future<TableMeta.ColumnMeta>> futures = new ArrayList<>();
        for (final int c : work) {
            futures.add(pool.submit(() -> writeColumn(dir, table, order, c, pool, align)));
        }
        if (align > 0 && pool.parallel() && !order.identity() && !order.reordered() && columns.scattersWhole(table)) {
            order.stages().prepareTargets(PlainColumnScatter.WHOLE_STAGE_ROWS);
        }
        return new PendingTable(dir, date, table, order, work, futures, pool, start);
    }

    /** A table whose columns are being written ({@link #startTable}). */
    private final class PendingTable {
        private final Path dir;
        private final LocalDate date;
        private final TableSegment table;
        private final SortOrder order;
        private final List<Integer> work;
        private final List<Future<TableMeta.ColumnMeta>> futures;
        private final WriterPool pool;
        private final long start;

        PendingTable(final Path dir, final LocalDate date, final TableSegment table, final SortOrder order, final List<Integer> work,
                     final List<Future<TableMeta.ColumnMeta>> futures, final WriterPool pool, final long start) {
            this.dir = dir;
            this.date = date;
            this.table = table;
            this.order = order;
            this.work = work;
            this.futures = futures;
            this.pool = pool;
            this.start = start;
        }

        /** Waits for the table's columns, then writes its sym ranges and meta. */
        TableWritten finish() throws IOException {
            final TableSchema schema = table.schema();
            final TableMeta.ColumnMeta[] metas = new TableMeta.ColumnMeta[schema.columnCount()];
            for (int i = 0; i < work.size(); i++) {
                metas[work.get(i)] = WriterPool.await(futures.get(i), schema.name());
            }
            order.ranges().write(dir.resolve(SymRanges.FILE));
            pool.sync(dir.resolve(SymRanges.FILE));
            final TableMeta meta = new TableMeta(schema, date, table.rowCount(), blockBytes, List.of(metas));
            meta.write(dir.resolve(TableMeta.FILE));
            pool.sync(dir.resolve(TableMeta.FILE));
            long raw = 0;
            long stored = 0;
            for (final TableMeta.ColumnMeta m : metas) {
                raw += m.rawBytes();
                stored += m.storedBytes();
            }
            return new TableWritten(schema.name(), table.rowCount(), raw, stored, System.nanoTime() - start);
        }
    }

    private TableMeta.ColumnMeta writeColumn(final Path dir, final TableSegment table, final SortOrder order, final int c,
                                             final WriterPool pool, final int align) throws IOException {
        final TableMeta.ColumnMeta meta = columns.write(dir, table, order, c, align, pool);
        hook.afterColumn(dir.resolve(meta.name()));
        pool.sync(dir.resolve(meta.name()));
        return meta;
    }
}
