package io.jtick.core.replay;

import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;

/**
 * A replay request checked and bound to the HDB: the tables (request order, which is the tie order
 * between tables), their schemas, the dates in range that hold any of them, and per date and table
 * the {@link DayTable} to read. It pins every partition it names until the last reader releases it
 * (a tier swap meanwhile takes effect for the next replay). Shared by the readers of one stream;
 * reference counted.
 */
final class ReplayPlan {
    /** Largest frame a request's rows per update may produce (what a default client accepts). */
    static final int MAX_FRAME_BYTES = FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH;
    private static final long DAY_NANOS = 86_400_000_000_000L;

    final ControlFrames.Replay request;
    final List<TableSchema> schemas;
    final LocalDate[] dates;
    /** [date][table], null where that table has no partition that date. */
    final DayTable[][] days;
    final long totalRows;
    final int rowsPerUpdate;
    final boolean paced;
    final double speed;
    final ReplaySettings settings;
    /** Where a date's compressed columns are decoded besides the reader entering it (null: that reader alone). */
    final Executor decoders;
    /** Where a date's compressed columns are decoded to. */
    final ScratchPool scratch;
    final String key;
    private final List<StoredTable> pinned;
    private int refs = 1;

    private ReplayPlan(final ControlFrames.Replay request, final List<TableSchema> schemas, final LocalDate[] dates,
                       final DayTable[][] days, final int rowsPerUpdate, final ReplaySettings settings, final Executor decoders,
                       final ScratchPool scratch, final String key, final List<StoredTable> pinned) {
        this.request = request;
        this.schemas = List.copyOf(schemas);
        this.dates = dates;
        this.days = days;
        long n = 0;
        for (final DayTable[] d : days) {
            for (final DayTable t : d) {
                n += t == null ? 0 : t.rows;
            }
        }
        this.totalRows = n;
        this.rowsPerUpdate = rowsPerUpdate;
        this.paced = request.pace() == ControlFrames.PACE_RECORDED;
        this.speed = request.speed();
        this.settings = settings;
        this.decoders = decoders;
        this.scratch = scratch;
        this.key = key;
        this.pinned = pinned;
    }

    /**
     * Checks {@code r} and binds it to what {@code hdb} holds now; {@code decoders} help decode its compressed dates into
     * {@code scratch}.
     *
     * @throws ReplayException naming the first problem: unknown-table, or bad-replay for a bad range,
     *                         window, zone, pace, speed or rows per update, no partitions in range, or a table
     *                         whose schema differs between the dates of the range
     */
    static ReplayPlan open(final HistoricalDatabase hdb, final ControlFrames.Replay r, final ReplaySettings settings,
                           final Executor decoders, final ScratchPool scratch) {
        if (r.tables().isEmpty() || r.tables().size() > 64) {
            throw bad("a replay names 1..64 tables [tables=" + r.tables().size() + "]");
        }
        if (new HashSet<>(r.tables()).size() != r.tables().size()) {
            throw bad("a table is named twice [tables=" + r.tables() + "]");
        }
        for (final String t : r.tables()) {
            if (hdb.schemaOf(t) == null) {
                throw new ReplayException(ErrorCode.UNKNOWN_TABLE, "unknown table [table=" + t + "]");
            }
        }
        if (r.fromDay() > r.toDay()) {
            throw bad("date range ends before it starts [from=" + LocalDate.ofEpochDay(r.fromDay()) + ", to="
                + LocalDate.ofEpochDay(r.toDay()) + "]");
        }
        if (r.pace() != ControlFrames.PACE_MAX && r.pace() != ControlFrames.PACE_RECORDED) {
            throw bad("unknown pace, expected 0 (max) or 1 (recorded) [pace=" + r.pace() + "]");
        }
        if (r.pace() == ControlFrames.PACE_RECORDED && !(r.speed() > 0 && !Double.isInfinite(r.speed()))) {
            throw bad("speed must be a positive number [speed=" + r.speed() + "]");
        }
        final boolean windowed = r.startNanos() != 0 || r.endNanos() != ControlFrames.Replay.NO_END;
        if (r.startNanos() < 0 || r.startNanos() >= 2 * DAY_NANOS || r.endNanos() <= r.startNanos()) {
            throw bad("time-of-day window must have 0 <= start < 48h and end > start [startNanos=" + r.startNanos() + ", endNanos="
                + r.endNanos() + "]");
        }
        final ZoneId zone;
        try {
            zone = r.zone().isEmpty() ? settings.zone() : ZoneId.of(r.zone());
        } catch (final DateTimeException e) {
            throw bad("unknown zone [zone=" + r.zone() + "]");
        }
        final int perUpdate = r.rowsPerUpdate() == 0 ? settings.defaultRowsPerUpdate() : r.rowsPerUpdate();
        if (perUpdate < 1 || perUpdate > settings.maxRowsPerUpdate()) {
            throw bad("rows per update must be 1.." + settings.maxRowsPerUpdate() + " [rowsPerUpdate=" + r.rowsPerUpdate() + "]");
        }
        final LocalDate from = LocalDate.ofEpochDay(r.fromDay());
        final LocalDate to = LocalDate.ofEpochDay(r.toDay());
        final List<StoredTable> pinned = new ArrayList<>();
        try {
            final List<TableSchema> schemas = new ArrayList<>();
            final TreeMap<LocalDate, StoredTable[]> byDate = new TreeMap<>();
            for (int t = 0; t < r.tables().size(); t++) {
                final String table = r.tables().get(t);
                final List<StoredTable> parts = hdb.acquire(table, from, to);
                pinned.addAll(parts);
                TableSchema schema = null;
                for (int i = parts.size() - 1; i >= 0; i--) {
                    final StoredTable p = parts.get(i);
                    if (schema == null) {
                        schema = p.schema();
                    } else if (!schema.equals(p.schema())) {
                        throw bad("schema of a table differs between dates of the range; replay the dates apart [table=" + table
                            + ", date=" + p.date() + ", schema=" + p.schema().toSchemaString() + ", newest=" + schema.toSchemaString()
                            + "]");
                    }
                    byDate.computeIfAbsent(p.date(), d -> new StoredTable[r.tables().size()])[t] = p;
                }
                schemas.add(schema != null ? schema : hdb.schemaOf(table));
                final long frame = (long) perUpdate * (schemas.get(t).rowWidth() + 8) + 4096;
                if (frame > MAX_FRAME_BYTES) {
                    throw bad("an update of this many rows exceeds the frame limit [rowsPerUpdate=" + perUpdate + ", table=" + table
                        + ", bytes~" + frame + ", max=" + MAX_FRAME_BYTES + "]");
                }
            }
            if (byDate.isEmpty()) {
                throw bad("no partitions in range [tables=" + r.tables() + ", from=" + from + ", to=" + to + "]");
            }
            final Set<String> syms = r.syms().isEmpty() ? null : new LinkedHashSet<>(r.syms());
            final LocalDate[] dates = byDate.keySet().toArray(new LocalDate[0]);
            final DayTable[][] days = new DayTable[dates.length][];
            for (int d = 0; d < dates.length; d++) {
                final StoredTable[] parts = byDate.get(dates[d]);
                final long lo = windowed && r.startNanos() > 0 ? instant(dates[d], r.startNanos(), zone) : Long.MIN_VALUE;
                final long hi = windowed && r.endNanos() != ControlFrames.Replay.NO_END ? instant(dates[d], r.endNanos(), zone)
                    : Long.MAX_VALUE;
                days[d] = new DayTable[parts.length];
                for (int t = 0; t < parts.length; t++) {
                    days[d][t] = parts[t] == null ? null : DayTable.open(t, parts[t], syms, lo, hi);
                }
            }
            final String key = keyOf(r, settings);
            return new ReplayPlan(r, schemas, dates, days, perUpdate, settings, decoders, scratch, key, pinned);
        } catch (final RuntimeException e) {
            pinned.forEach(StoredTable::release);
            throw e;
        }
    }

    /**
     * What makes two requests the same replay (tables, dates, syms as a set, window, zone, pace,
     * speed, rows per update); null when the zone does not parse (the request is refused anyway).
     */
    static String keyOf(final ControlFrames.Replay r, final ReplaySettings settings) {
        final String zone;
        try {
            zone = r.zone().isEmpty() ? settings.zone().getId() : ZoneId.of(r.zone()).getId();
        } catch (final DateTimeException e) {
            return null;
        }
        final int perUpdate = r.rowsPerUpdate() == 0 ? settings.defaultRowsPerUpdate() : r.rowsPerUpdate();
        return String.join(",", r.tables()) + "|" + r.fromDay() + "|" + r.toDay() + "|"
            + (r.syms().isEmpty() ? "*" : String.join(",", new TreeSet<>(r.syms()))) + "|" + r.startNanos() + "|" + r.endNanos() + "|"
            + zone + "|" + r.pace() + "|" + (r.pace() == ControlFrames.PACE_RECORDED ? r.speed() : 0) + "|" + perUpdate;
    }

    /** Epoch ns of a time of day (ns after local midnight, may pass 24h) on {@code date} in {@code zone}, DST-safe. */
    static long instant(final LocalDate date, final long nanosOfDay, final ZoneId zone) {
        final LocalDate day = date.plusDays(nanosOfDay / DAY_NANOS);
        final java.time.Instant i = day.atTime(LocalTime.ofNanoOfDay(nanosOfDay % DAY_NANOS)).atZone(zone).toInstant();
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
    }

    private static ReplayException bad(final String message) {
        return new ReplayException(ErrorCode.BAD_REPLAY, message);
    }

    /** Rows this replay sends of table {@code t} (request order). */
    long rowsOf(final int t) {
        long n = 0;
        for (final DayTable[] d : days) {
            n += d[t] == null ? 0 : d[t].rows;
        }
        return n;
    }

    /** Bytes of decoded scratch (compressed columns of the dates being read) this plan's days hold now. */
    long scratchBytes() {
        long n = 0;
        for (final DayTable[] d : days) {
            for (final DayTable t : d) {
                n += t == null ? 0 : t.scratchBytes();
            }
        }
        return n;
    }

    synchronized void retain() {
        if (refs <= 0) {
            throw new IllegalStateException("replay plan already released");
        }
        refs++;
    }

    /** The last release unpins the partitions. */
    void release() {
        synchronized (this) {
            if (refs <= 0 || --refs > 0) {
                return;
            }
        }
        pinned.forEach(StoredTable::release);
    }
}
