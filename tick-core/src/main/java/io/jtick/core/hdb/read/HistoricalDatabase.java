package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The loaded HDB: every table of every date partition under a root, opened and checked. Reads
 * run concurrently with {@link #reload()} and with tier swaps ({@link #replace}): a reader takes
 * the current immutable map, retains the tables it reads and releases them when done.
 *
 * <p>With {@link #preloadDays} set, the tables a reload opens for the newest days are read once on a
 * background thread ({@link StoredTable#preload}: every block checksummed, the mapped pages touched,
 * encoded columns decoded into the shared cache while it has room for them), so that the first query of
 * the day pays for none of it.
 */
public final class HistoricalDatabase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HistoricalDatabase.class);

    private final Path root;
    private final AtomicLong corruptReads;
    private final AtomicLong preloadedBytes;
    private int preloadDays;
    private ExecutorService preloader;
    /** Set by {@link #close}: the preloads of that executor release their tables without reading them. */
    private AtomicBoolean preloadStopped;
    private volatile Future<?> lastPreload;
    private volatile NavigableMap<LocalDate, Map<String, Loaded>> partitions = Collections.emptyNavigableMap();
    private volatile ColdStore cold;
    private boolean recovered;

    /** A table directory and the identity of the directory it was opened from (a swap changes it). */
    private record Loaded(StoredTable table, Object fileKey) {
    }

    /** One table of one partition as listed: its format ({@code jtick}, {@code parquet/zstd}), rows and per-column bytes and encoding. */
    public record TableInfo(String table, String format, int rows, long bytesOnDisk, long rawBytes, List<ColumnInfo> columns) {
    }

    /** One column as listed. */
    public record ColumnInfo(String name, String type, String encoding, long rawBytes, long bytesOnDisk) {
    }

    /** One partition as listed. */
    public record PartitionInfo(LocalDate date, List<TableInfo> tables) {
    }

    /** What a reload changed. */
    public record ReloadReport(int partitions, int tables, List<String> opened, List<String> dropped, PartitionStore.Recovery recovery) {
    }

    public HistoricalDatabase(final Path root, final TickMetrics metrics) {
        this.root = Objects.requireNonNull(root, "root");
        this.corruptReads = metrics.counter("tick.hdb.corrupt.reads");
        this.preloadedBytes = metrics.counter("tick.hdb.preload.bytes");
        metrics.gauge("tick.hdb.partitions", () -> partitions.size());
    }

    public Path root() {
        return root;
    }

    /**
     * From the next reload on, the tables it opens for the newest {@code days} dates are preloaded in
     * the background ({@link StoredTable#preload}); 0 (the default) turns it off.
     */
    public synchronized void preloadDays(final int days) {
        if (days < 0) {
            throw new IllegalArgumentException("preload days must be >= 0 [days=" + days + "]");
        }
        this.preloadDays = days;
    }

    /** Waits until the preloads started so far have finished; false when {@code timeout} passed first. */
    public boolean awaitPreload(final Duration timeout) throws InterruptedException {
        final Future<?> f = lastPreload;
        if (f == null) {
            return true;
        }
        try {
            f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (final TimeoutException e) {
            return false;
        } catch (final ExecutionException e) {
            return true;
        }
        return true;
    }

    /** Lists and reads the cold tier's partitions beside the root's from the next reload on (null: none). */
    public void coldStore(final ColdStore store) {
        this.cold = store;
    }

    /** The cold tier, or null. */
    public ColdStore coldStore() {
        return cold;
    }

    /**
     * Opens what is new or changed under the root and drops what is gone. The first reload (at
     * start) also finishes or undoes writes a crash interrupted ({@link PartitionStore#recover});
     * later ones leave temporary directories alone, since a writer (an RDB's end of day, the
     * tiering job) may be using them. All or nothing: when any table fails to open, nothing changes
     * and the error names the file.
     */
    public synchronized ReloadReport reload() throws IOException {
        final PartitionStore.Recovery recovery = recovered ? new PartitionStore.Recovery(List.of(),
            List.of()) : PartitionStore.recover(root);
        recovered = true;
        for (final Path p : recovery.restored()) {
            LOG.warn("restored table directory after an interrupted swap [dir={}]", p);
        }
        final TreeMap<LocalDate, List<Path>> found = PartitionStore.scan(root);
        final NavigableMap<LocalDate, Map<String, Loaded>> current = partitions;
        final TreeMap<LocalDate, Map<String, Loaded>> next = new TreeMap<>();
        final List<StoredTable> openedNow = new ArrayList<>();
        final List<String> opened = new ArrayList<>();
        int tables = 0;
        try {
            for (final Map.Entry<LocalDate, List<Path>> e : found.entrySet()) {
                final Map<String, Loaded> byTable = new TreeMap<>();
                for (final Path dir : e.getValue()) {
                    final String name = dir.getFileName().toString();
                    final Object key = Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
                    final Loaded old = current.getOrDefault(e.getKey(), Map.of()).get(name);
                    if (old != null && key != null && key.equals(old.fileKey())) {
                        byTable.put(name, old);
                    } else {
                        final StoredTable t = TableFormats.open(dir);
                        if (!t.date().equals(e.getKey()) || !t.name().equals(name)) {
                            t.close();
                            throw new CorruptPartitionException(dir, -1, "metadata names another partition [date="
                                + t.date() + ", table=" + t.name() + "]");
                        }
                        openedNow.add(t);
                        byTable.put(name, new Loaded(t, key));
                        opened.add(e.getKey() + "/" + name);
                    }
                    tables++;
                }
                next.put(e.getKey(), Collections.unmodifiableMap(byTable));
            }
            tables += loadCold(current, next, openedNow, opened);
        } catch (final IOException | RuntimeException e) {
            openedNow.forEach(StoredTable::close);
            throw e;
        }
        final List<String> dropped = new ArrayList<>();
        partitions = Collections.unmodifiableNavigableMap(next);
        for (final Map.Entry<LocalDate, Map<String, Loaded>> e : current.entrySet()) {
            for (final Map.Entry<String, Loaded> t : e.getValue().entrySet()) {
                final Loaded now = next.getOrDefault(e.getKey(), Map.of()).get(t.getKey());
                if (now != t.getValue()) {
                    t.getValue().table().close();
                    if (now == null) {
                        dropped.add(e.getKey() + "/" + t.getKey());
                    }
                }
            }
        }
        preloadNewest(next, openedNow);
        return new ReloadReport(next.size(), tables, List.copyOf(opened), List.copyOf(dropped), recovery);
    }

    /** Hands the tables just opened for the newest {@link #preloadDays} dates, retained, to the preload thread. */
    private void preloadNewest(final NavigableMap<LocalDate, Map<String, Loaded>> next, final List<StoredTable> openedNow) {
        if (preloadDays == 0 || openedNow.isEmpty()) {
            return;
        }
        final Set<LocalDate> newest = next.descendingKeySet().stream().limit(preloadDays).collect(Collectors.toSet());
        final List<StoredTable> tables = new ArrayList<>();
        for (final StoredTable t : openedNow) {
            if (newest.contains(t.date()) && t.retain()) {
                tables.add(t);
            }
        }
        if (tables.isEmpty()) {
            return;
        }
        try {
            final ExecutorService executor = preloadExecutor();
            final AtomicBoolean stopped = preloadStopped;
            lastPreload = executor.submit(() -> preload(tables, stopped));
        } catch (final RuntimeException e) {
            tables.forEach(StoredTable::release);
            LOG.warn("cannot start the preload of the newest days: {}", e.toString());
        }
    }

    /** The preload thread, started at the first preload (package-private: a test holds it busy to queue preloads). */
    synchronized ExecutorService preloadExecutor() {
        if (preloader == null) {
            preloader = Executors.newSingleThreadExecutor(new DefaultThreadFactory("jtick-hdb-preload", true));
            preloadStopped = new AtomicBoolean();
        }
        return preloader;
    }

    /** Reads each table once ({@link StoredTable#preload}), stopping early when this database closes; releases them. */
    private void preload(final List<StoredTable> tables, final AtomicBoolean stopped) {
        final long t0 = System.nanoTime();
        long bytes = 0;
        int done = 0;
        try {
            for (final StoredTable t : tables) {
                if (stopped.get()) {
                    break;
                }
                try {
                    bytes += t.preload();
                    done++;
                } catch (final CorruptPartitionException e) {
                    corruptReads.incrementAndGet();
                    LOG.error("preload met a corrupt block: {}", e.getMessage());
                } catch (final IOException | RuntimeException e) {
                    LOG.warn("cannot preload a table [date={}, table={}]: {}", t.date(), t.name(), e.getMessage());
                }
            }
        } finally {
            tables.forEach(StoredTable::release);
        }
        preloadedBytes.addAndGet(bytes);
        // debug: the query warm-up preloads its own partitions every other round; tick_hdb_preload_bytes_total counts the service's
        LOG.debug("HDB preloaded [tables={}, of={}, bytes={}, millis={}]", done, tables.size(), bytes,
            (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * Adds the cold tier's partitions that have no local copy (a local one is authoritative until the
     * tiering job deletes it). When the store cannot be listed, the cold tables already loaded stay as
     * they were and the error is logged: a store that is down does not stop the HDB or drop its days.
     */
    private int loadCold(final NavigableMap<LocalDate, Map<String, Loaded>> current, final TreeMap<LocalDate, Map<String, Loaded>> next,
                         final List<StoredTable> openedNow, final List<String> opened) throws IOException {
        final ColdStore store = cold;
        if (store == null) {
            return 0;
        }
        List<ColdStore.ColdPartition> listed;
        try {
            listed = store.list();
        } catch (final IOException | RuntimeException e) {
            LOG.error("cannot list the cold tier, keeping the cold partitions already loaded [store={}]: {}", store.describe(),
                e.getMessage());
            listed = null;
        }
        int added = 0;
        if (listed == null) {
            for (final Map.Entry<LocalDate, Map<String, Loaded>> e : current.entrySet()) {
                for (final Map.Entry<String, Loaded> t : e.getValue().entrySet()) {
                    if (t.getValue().fileKey() instanceof ColdStore.ColdPartition && !next.getOrDefault(e.getKey(), Map.of())
                        .containsKey(t.getKey())) {
                        put(next, e.getKey(), t.getKey(), t.getValue());
                        added++;
                    }
                }
            }
            return added;
        }
        for (final ColdStore.ColdPartition p : listed) {
            if (next.getOrDefault(p.date(), Map.of()).containsKey(p.table())) {
                continue;
            }
            final Loaded old = current.getOrDefault(p.date(), Map.of()).get(p.table());
            if (old != null && p.equals(old.fileKey())) {
                put(next, p.date(), p.table(), old);
            } else {
                final StoredTable t;
                try {
                    t = store.open(p, root.resolve(p.date().toString()).resolve(p.table()));
                } catch (final IOException | RuntimeException e) {
                    LOG.error("cannot open a cold partition, {} [date={}, table={}, store={}]: {}", old != null ? "keeping the one loaded"
                        : "not listed until a reload opens it", p.date(), p.table(), store.describe(), e.getMessage());
                    if (old != null) {
                        put(next, p.date(), p.table(), old);
                        added++;
                    }
                    continue;
                }
                openedNow.add(t);
                put(next, p.date(), p.table(), new Loaded(t, p));
                opened.add(p.date() + "/" + p.table() + " (" + t.format() + ")");
            }
            added++;
        }
        return added;
    }

    private static void put(final TreeMap<LocalDate, Map<String, Loaded>> next, final LocalDate date, final String table,
                            final Loaded loaded) {
        final Map<String, Loaded> byTable = new TreeMap<>(next.getOrDefault(date, Map.of()));
        byTable.put(table, loaded);
        next.put(date, Collections.unmodifiableMap(byTable));
    }

    /**
     * Replaces one loaded table by its published copy in the cold tier (the tiering job, before it
     * deletes the local files); queries holding the old table finish on it.
     */
    public synchronized void replaceCold(final ColdStore.ColdPartition partition) throws IOException {
        final ColdStore store = Objects.requireNonNull(cold, "no cold store");
        final StoredTable fresh = store.open(partition, root.resolve(partition.date().toString()).resolve(partition.table()));
        final TreeMap<LocalDate, Map<String, Loaded>> next = new TreeMap<>(partitions);
        final Map<String, Loaded> byTable = new TreeMap<>(next.getOrDefault(partition.date(), Map.of()));
        final Loaded old = byTable.put(partition.table(), new Loaded(fresh, partition));
        next.put(partition.date(), Collections.unmodifiableMap(byTable));
        partitions = Collections.unmodifiableNavigableMap(next);
        if (old != null) {
            old.table().close();
        }
    }

    /** Replaces one loaded table by the directory now at its place (after a tier rewrite); the old one closes when unused. */
    public synchronized void replace(final LocalDate date, final String table) throws IOException {
        final Path dir = root.resolve(date.toString()).resolve(table);
        final StoredTable fresh = TableFormats.open(dir);
        final Object key = Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        final TreeMap<LocalDate, Map<String, Loaded>> next = new TreeMap<>(partitions);
        final Map<String, Loaded> byTable = new TreeMap<>(next.getOrDefault(date, Map.of()));
        final Loaded old = byTable.put(table, new Loaded(fresh, key));
        next.put(date, Collections.unmodifiableMap(byTable));
        partitions = Collections.unmodifiableNavigableMap(next);
        if (old != null) {
            old.table().close();
        }
    }

    /**
     * Forgets one table (its directory was deleted or moved away by retention); running queries keep
     * the old files open until they finish. The date goes when its last table does.
     */
    public synchronized void remove(final LocalDate date, final String table) {
        final TreeMap<LocalDate, Map<String, Loaded>> next = new TreeMap<>(partitions);
        final Map<String, Loaded> byTable = new TreeMap<>(next.getOrDefault(date, Map.of()));
        final Loaded old = byTable.remove(table);
        if (byTable.isEmpty()) {
            next.remove(date);
        } else {
            next.put(date, Collections.unmodifiableMap(byTable));
        }
        partitions = Collections.unmodifiableNavigableMap(next);
        if (old != null) {
            old.table().close();
        }
    }

    /** Loaded dates, ascending. */
    public List<LocalDate> dates() {
        return List.copyOf(partitions.keySet());
    }

    /**
     * The tables named {@code table} in {@code [from, to]} (null bounds: open), retained: the caller
     * must {@link StoredTable#release()} each one.
     */
    public List<StoredTable> acquire(final String table, final LocalDate from, final LocalDate to) {
        final NavigableMap<LocalDate, Map<String, Loaded>> all = partitions;
        final NavigableMap<LocalDate, Map<String, Loaded>> range;
        if (from == null && to == null) {
            range = all;
        } else {
            range = all.subMap(from == null ? LocalDate.MIN : from, true, to == null ? LocalDate.MAX : to, true);
        }
        final List<StoredTable> out = new ArrayList<>();
        for (final Map<String, Loaded> byTable : range.values()) {
            final Loaded l = byTable.get(table);
            if (l != null && l.table().retain()) {
                out.add(l.table());
            }
        }
        return out;
    }

    /** The schema of the newest partition holding {@code table}, or null when none does. */
    public TableSchema schemaOf(final String table) {
        for (final Map<String, Loaded> byTable : partitions.descendingMap().values()) {
            final Loaded l = byTable.get(table);
            if (l != null) {
                return l.table().schema();
            }
        }
        return null;
    }

    /** Counts a read that met a block failing its checks ({@code tick.hdb.corrupt.reads}). */
    public void corruptRead(final CorruptPartitionException e) {
        corruptReads.incrementAndGet();
        LOG.error("query met a corrupt block: {}", e.getMessage());
    }

    /** Every loaded table, retained (release each). */
    public List<StoredTable> acquireAll() {
        final List<StoredTable> out = new ArrayList<>();
        for (final Map<String, Loaded> byTable : partitions.values()) {
            for (final Loaded l : byTable.values()) {
                if (l.table().retain()) {
                    out.add(l.table());
                }
            }
        }
        return out;
    }

    /** Dates, tables, rows, and per column bytes on disk and encoding. */
    public List<PartitionInfo> partitions() {
        final List<PartitionInfo> out = new ArrayList<>();
        for (final Map.Entry<LocalDate, Map<String, Loaded>> e : partitions.entrySet()) {
            final List<TableInfo> tables = new ArrayList<>();
            for (final Loaded l : e.getValue().values()) {
                final StoredTable t = l.table();
                final List<ColumnInfo> cols = new ArrayList<>();
                long raw = 0;
                for (final StoredTable.StoredColumn c : t.describe()) {
                    cols.add(new ColumnInfo(c.name(), c.type(), c.encoding(), c.rawBytes(), c.bytesOnDisk()));
                    raw += c.rawBytes();
                }
                tables.add(new TableInfo(t.name(), t.format(), t.rowCount(), t.bytesOnDisk(), raw, List.copyOf(cols)));
            }
            out.add(new PartitionInfo(e.getKey(), List.copyOf(tables)));
        }
        return out;
    }

    @Override
    public synchronized void close() {
        if (preloader != null) {
            // queued preloads still run, only to release their tables; a running one stops after its table
            preloadStopped.set(true);
            preloader.shutdown();
            preloader = null;
        }
        for (final Map<String, Loaded> byTable : partitions.values()) {
            for (final Loaded l : byTable.values()) {
                l.table().close();
            }
        }
        partitions = Collections.emptyNavigableMap();
    }
}
