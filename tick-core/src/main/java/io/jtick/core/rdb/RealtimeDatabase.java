package io.jtick.core.rdb;

import io.jtick.core.client.TickListener;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real-time database ({@code r.q}): a {@link TickListener} that keeps today's tables in
 * memory, answers queries over them (a {@link QuerySource} of one segment per table, dated
 * {@link #currentDay()}) and hands them to an {@link EndOfDayHandler} at end of day.
 * Give {@link #lastSequence()} to the {@code TickClient} as its from-sequence: after a reconnect
 * it re-subscribes right after the last applied update, and any update at or below that sequence
 * that still arrives is skipped and counted as a duplicate (so no gap and no duplicate rows).
 * Sequences are journal positions and grow across days.
 *
 * <p>State (all written on the subscription thread only; read by any thread):
 * <ul>
 *   <li>{@code tables}: today's {@link RealtimeTable}s, an array replaced (never mutated) when a
 *       table is added or end of day clears them;</li>
 *   <li>{@code lastSequence}: sequence of the last applied update (or of the last end of day);</li>
 *   <li>{@code caughtUp}: history replay done, updates are live (cleared on disconnect);</li>
 *   <li>{@code tradingDay}: the trading day the tables hold (epoch day): the TP's day from the subscribe
 *       reply, the next day after each end of day (kdb's {@code .u.d+:1}); -1 before any;</li>
 *   <li>{@code lastEndOfDay}: epoch day of the last end of day that saved, -1 before any;
 *       {@code lastEodError}: why the last failed end of day failed (kept after a later success),
 *       null before any failure; {@code lastError}: the last rejected update or TP error;</li>
 *   <li>{@code symbols}: the RDB-wide {@link SymbolCatalog}, kept across end of day (ids stay valid);</li>
 *   <li>{@code chunks}: the {@link ChunkPool} the tables grow from; the day's tables go back to it
 *       at end of day, once the write-down and every query still reading them are done (gauge
 *       {@code tick.rdb.chunk.pool.bytes}: the free chunks it holds);</li>
 *   <li>{@code indexAgent}: the {@link SymIndexAgent} the indexed tables hand each filled chunk to, or null;</li>
 *   <li>counters in {@link TickMetrics}: {@code tick.rdb.rows}, {@code tick.rdb.updates} (frames
 *       applied), {@code tick.rdb.duplicates}, {@code tick.rdb.rejected}, {@code tick.rdb.eod},
 *       {@code tick.rdb.eod.failures}; gauges {@code tick.rdb.last.sequence},
 *       {@code tick.rdb.table.rows|table=x} and {@code tick.rdb.table.bytes|table=x} (heap bytes the
 *       table holds, {@link RealtimeTable#memoryBytes}) for the tables named at construction;</li>
 *   <li>latencies {@code tick.rdb.recv} (receive time − TP publish time, epoch ns; live updates
 *       only, replayed history would swamp it) and {@code tick.rdb.upd} (time of the insert).</li>
 * </ul>
 */
public final class RealtimeDatabase implements TickListener, QuerySource {
    private static final Logger LOG = LoggerFactory.getLogger(RealtimeDatabase.class);

    private final SymbolCatalog symbols = new SymbolCatalog();
    private final ChunkPool chunks;
    private final SymIndexAgent indexAgent;
    private final EndOfDayHandler endOfDay;
    private final int initialCapacity;
    private final Set<String> unindexedTables;
    private final LatencyStats recv;
    private final LatencyStats upd;
    private final AtomicLong rows;
    private final AtomicLong updates;
    private final AtomicLong duplicates;
    private final AtomicLong rejected;
    private final AtomicLong eods;
    private final AtomicLong eodFailures;

    private volatile RealtimeTable[] tables = new RealtimeTable[0];
    private volatile long lastSequence;
    private volatile boolean caughtUp;
    private volatile int tradingDay = -1;
    private volatile int lastEndOfDay = -1;
    private volatile String lastEodError;
    private volatile String lastError;

    /** An RDB that drops its data at end of day. */
    public RealtimeDatabase(final TickMetrics metrics) {
        this(metrics, EndOfDayHandler.NONE, List.of(), RealtimeTable.DEFAULT_CAPACITY, Set.of());
    }

    /**
     * @param metrics         where latencies, counters and gauges go
     * @param endOfDay        what to do with the day's tables before they are cleared
     * @param gaugeTables     tables that get a {@code tick.rdb.table.rows} gauge now (metric exporters
     *                        bind once at start-up, before the TP has told which tables exist)
     * @param initialCapacity rows each new table starts with
     * @param unindexedTables tables kept without a sym index (one-sym queries scan them, as a kdb+ table without {@code g#})
     */
    public RealtimeDatabase(final TickMetrics metrics, final EndOfDayHandler endOfDay, final Collection<String> gaugeTables,
                            final int initialCapacity, final Set<String> unindexedTables) {
        this(metrics, endOfDay, gaugeTables, initialCapacity, unindexedTables, Long.MAX_VALUE);
    }

    /**
     * As above, with {@code chunkPoolBytes}: heap bytes of retired chunks kept for the next day at most
     * ({@link Long#MAX_VALUE}: all of them, as kdb+'s allocator keeps what it took; 0: none, the GC takes them).
     */
    public RealtimeDatabase(final TickMetrics metrics, final EndOfDayHandler endOfDay, final Collection<String> gaugeTables,
                            final int initialCapacity, final Set<String> unindexedTables, final long chunkPoolBytes) {
        this(metrics, endOfDay, gaugeTables, initialCapacity, unindexedTables, chunkPoolBytes, null);
    }

    /**
     * As above, with {@code indexAgent}: the thread that sorts each chunk of the indexed tables into their sym index as soon as
     * the subscription has filled it (the caller owns it and closes it after the RDB), or null: the queries index every row.
     */
    public RealtimeDatabase(final TickMetrics metrics, final EndOfDayHandler endOfDay, final Collection<String> gaugeTables,
                            final int initialCapacity, final Set<String> unindexedTables, final long chunkPoolBytes,
                            final SymIndexAgent indexAgent) {
        if (chunkPoolBytes < 0) {
            throw new IllegalArgumentException("the chunk pool's size must be >= 0 [value=" + chunkPoolBytes + "]");
        }
        this.chunks = new ChunkPool(chunkPoolBytes);
        this.indexAgent = indexAgent;
        this.endOfDay = endOfDay;
        this.initialCapacity = initialCapacity;
        this.unindexedTables = Set.copyOf(unindexedTables);
        this.recv = metrics.latency("tick.rdb.recv", "RDB receive time minus TP publish time");
        this.upd = metrics.latency("tick.rdb.upd", "RDB insert time of one update");
        this.rows = metrics.counter("tick.rdb.rows");
        this.updates = metrics.counter("tick.rdb.updates");
        this.duplicates = metrics.counter("tick.rdb.duplicates");
        this.rejected = metrics.counter("tick.rdb.rejected");
        this.eods = metrics.counter("tick.rdb.eod");
        this.eodFailures = metrics.counter("tick.rdb.eod.failures");
        metrics.gauge("tick.rdb.last.sequence", this::lastSequence);
        metrics.gauge("tick.rdb.chunk.pool.bytes", chunks::bytes);
        for (final String t : gaugeTables) {
            metrics.gauge("tick.rdb.table.rows|table=" + t, () -> rowCount(t));
            metrics.gauge("tick.rdb.table.bytes|table=" + t, () -> memoryBytes(t));
        }
    }

    // ---- subscription thread ----------------------------------------------------------------

    @Override
    public void onSubscribed(final ControlFrames.Subscribed subscribed) {
        caughtUp = false;
        if (tradingDay < 0) {
            tradingDay = subscribed.epochDay();
        }
        for (final TableSchema schema : subscribed.schemas().values()) {
            final RealtimeTable existing = find(schema.name());
            if (existing == null) {
                addTable(newTable(schema));
            } else if (!existing.schema().equals(schema)) {
                LOG.warn("table schema changed, dropping its rows [table={}, rows={}, was={}, now={}]", schema.name(),
                    existing.rowCount(), existing.schema().toSchemaString(), schema.toSchemaString());
                replaceTable(existing, newTable(schema));
                existing.retire();
            }
        }
    }

    @Override
    public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
        final long sequence = update.sequence();
        if (sequence <= lastSequence) {
            duplicates.setRelease(duplicates.getPlain() + 1);
            return;
        }
        if (caughtUp) {
            recv.record(receiveNanos - update.tpTime());
        }
        RealtimeTable table = find(schema);
        if (table == null) {
            table = newTable(schema);
            addTable(table);
        }
        try {
            final long start = System.nanoTime();
            final int n = table.append(schema, update);
            upd.record(System.nanoTime() - start);
            rows.setRelease(rows.getPlain() + n);
            updates.setRelease(updates.getPlain() + 1);
        } catch (final RuntimeException e) {
            rejected.setRelease(rejected.getPlain() + 1);
            lastError = e.getMessage();
            LOG.warn("update rejected [table={}, sequence={}]: {}", schema.name(), sequence, e.getMessage());
        }
        lastSequence = sequence;
    }

    @Override
    public void onCatchUpDone(final long sequence) {
        // the replayed rows are indexed now, once, rather than by the first query that asks for a sym
        for (final RealtimeTable t : tables) {
            t.indexPublished();
        }
        caughtUp = true;
    }

    /**
     * Hands the day's tables to the {@link EndOfDayHandler}; on success swaps in empty tables with
     * the same schemas, on failure keeps the data (it goes out with the next end of day), counts
     * the failure and remembers its message. Never throws.
     */
    @Override
    public void onEndOfDay(final int epochDay, final long sequence) {
        final RealtimeTable[] day = tables;
        final List<TableSegment> views = new ArrayList<>(day.length);
        for (final RealtimeTable t : day) {
            views.add(t.segment(epochDay));
        }
        try {
            endOfDay.onEndOfDay(epochDay, List.copyOf(views));
        } catch (final Exception | LinkageError | AssertionError e) {
            // the message first: whoever sees the failure counted also sees why
            lastEodError = "end of day failed, data kept [day=" + epochDay + ", sequence=" + sequence + "]: " + e;
            eodFailures.setRelease(eodFailures.getPlain() + 1);
            LOG.error(lastEodError, e);
            return;
        } finally {
            for (final TableSegment v : views) {
                v.close();
            }
        }
        final RealtimeTable[] fresh = new RealtimeTable[day.length];
        for (int i = 0; i < day.length; i++) {
            fresh[i] = newTable(day[i].schema());
        }
        tables = fresh;
        // after the swap: a query that finds a retired table takes it again from the new array
        for (final RealtimeTable t : day) {
            t.retire();
        }
        lastEndOfDay = epochDay;
        tradingDay = epochDay + 1;
        if (sequence > lastSequence) {
            lastSequence = sequence;
        }
        eods.setRelease(eods.getPlain() + 1);
    }

    private RealtimeTable newTable(final TableSchema schema) {
        return new RealtimeTable(schema, symbols, initialCapacity, !unindexedTables.contains(schema.name()), chunks, indexAgent);
    }

    @Override
    public void onError(final ErrorCode code, final String message) {
        lastError = code.tag() + ": " + message;
    }

    @Override
    public void onDisconnected() {
        caughtUp = false;
    }

    private RealtimeTable find(final TableSchema schema) {
        final RealtimeTable[] ts = tables;
        for (final RealtimeTable t : ts) {
            if (t.schema() == schema) {
                return t;
            }
        }
        return find(schema.name());
    }

    private RealtimeTable find(final String name) {
        for (final RealtimeTable t : tables) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    private void addTable(final RealtimeTable table) {
        final RealtimeTable[] ts = tables;
        final RealtimeTable[] more = java.util.Arrays.copyOf(ts, ts.length + 1);
        more[ts.length] = table;
        tables = more;
    }

    private void replaceTable(final RealtimeTable old, final RealtimeTable table) {
        final RealtimeTable[] ts = tables.clone();
        for (int i = 0; i < ts.length; i++) {
            if (ts[i] == old) {
                ts[i] = table;
            }
        }
        tables = ts;
    }

    // ---- any thread ---------------------------------------------------------------------------

    /** Sequence of the last applied update: the from-sequence of the next subscribe. */
    public long lastSequence() {
        return lastSequence;
    }

    /** True once the TP said history is replayed, until the connection drops. */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** Today's tables as segments of {@link #currentDay()} (the rows published so far), in the order they appeared. */
    public List<TableSegment> tables() {
        final int day = currentDay();
        final List<TableSegment> views = new ArrayList<>();
        for (final RealtimeTable t : tables) {
            final TableSegment s = segment(t.name(), day);
            if (s != null) {
                views.add(s);
            }
        }
        return views;
    }

    /** One of today's tables as a segment of {@link #currentDay()}, or null. Close it when done: it holds the table's memory. */
    public TableSegment table(final String name) {
        return segment(name, currentDay());
    }

    /**
     * The named table's rows now, or null when there is no such table. A table retired by an end
     * of day between the look-up and the pin is looked up again: its replacement is in
     * {@code tables} before it is retired.
     */
    private TableSegment segment(final String name, final int day) {
        while (true) {
            final RealtimeTable t = find(name);
            if (t == null) {
                return null;
            }
            final TableSegment s = t.trySegment(day);
            if (s != null) {
                return s;
            }
        }
    }

    /** Rows in a table now, 0 when it does not exist. */
    public long rowCount(final String table) {
        final RealtimeTable t = find(table);
        return t == null ? 0 : t.rowCount();
    }

    /** Heap bytes a table holds now ({@link RealtimeTable#memoryBytes}), 0 when it does not exist. */
    public long memoryBytes(final String table) {
        final RealtimeTable t = find(table);
        return t == null ? 0 : t.memoryBytes();
    }

    /**
     * The trading day the tables hold (epoch day): the TP's day when first subscribed, the next
     * day after each end of day; today's UTC date before any subscription.
     */
    public int currentDay() {
        final int d = tradingDay;
        return d >= 0 ? d : (int) LocalDate.now(ZoneOffset.UTC).toEpochDay();
    }

    @Override
    public TableSchema schema(final String table) {
        final RealtimeTable t = find(table);
        return t == null ? null : t.schema();
    }

    /** Today's table as one zero-copy segment when {@link #currentDay()} is within the days asked for. */
    @Override
    public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
        final int d = currentDay();
        if (d < fromDay || d > toDay) {
            return List.of();
        }
        final TableSegment s = segment(table, d);
        return s == null ? List.of() : List.of(s);
    }

    /** The chunks today's tables reuse (see {@link ChunkPool}). */
    public ChunkPool chunkPool() {
        return chunks;
    }

    /** The RDB-wide symbol ids. */
    public SymbolCatalog symbols() {
        return symbols;
    }

    /** A point-in-time summary for status pages. */
    public Status status() {
        final Map<String, Long> perTable = new LinkedHashMap<>();
        final Map<String, Long> bytes = new LinkedHashMap<>();
        for (final RealtimeTable t : tables) {
            perTable.put(t.name(), (long) t.rowCount());
            bytes.put(t.name(), t.memoryBytes());
        }
        return new Status(caughtUp, lastSequence, perTable, bytes, rows.get(), updates.get(), duplicates.get(), rejected.get(),
            eods.get(), eodFailures.get(), lastEndOfDay, lastEodError, lastError);
    }

    /**
     * Counters and state for a status page.
     *
     * @param tableRows    rows of each table
     * @param tableBytes   heap bytes each table holds (columns, sym index, dictionary cache)
     * @param lastEndOfDay epoch day of the last successful end of day, -1 if none
     * @param lastEodError message of the last failed end of day, or null
     * @param lastError    last rejected update or TP error message, or null
     */
    public record Status(boolean caughtUp, long lastSequence, Map<String, Long> tableRows, Map<String, Long> tableBytes, long rows,
                         long updates, long duplicates, long rejected, long endOfDays, long endOfDayFailures, int lastEndOfDay,
                         String lastEodError, String lastError) {
        public Status {
            tableRows = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tableRows));
            tableBytes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tableBytes));
        }
    }
}
