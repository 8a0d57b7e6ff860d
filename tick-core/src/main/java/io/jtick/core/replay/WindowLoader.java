package io.jtick.core.replay;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.schema.TableSchema;
import org.agrona.UnsafeApi;

import java.util.Arrays;

/**
 * Reads a {@link ReplayPlan} in time order, date by date, one time window at a time, into
 * {@link ReplayWindow}s: every selected sym of every table is a sorted run of rows (the partitions
 * are sorted by sym then time); a window takes from each run the rows with {@code time < end}, reads
 * their columns (compressed columns from the date's decoded scratch, {@link DayTable}), orders them by
 * time ({@link TimeSort}: stable, so equal times go table by table in request order, then by sym, then
 * in recorded order) and gathers every column into that order, so that framing it is a copy.
 *
 * <p>A window holds about {@code windowRows} rows: its end is found by galloping search from each
 * run's position, widening or narrowing the span until the count is within ½..2 × windowRows (rows
 * that share one timestamp are never split, so a window may exceed that). Memory: the window's rows
 * in load order (time, sort keys and index: 32 bytes, plus the row's own columns) for about twice
 * windowRows, and per date one position per selected sym. Everything is deterministic in the data,
 * so another loader {@link #seek}ing to a {@link ReplayFrame.Cursor} produces the same windows.
 *
 * <p>One thread at a time (its {@link ReplayReader} serialises loads).
 */
final class WindowLoader {
    private final ReplayPlan plan;
    private final int tables;
    private final int windowRows;
    private final TimeSort sort = new TimeSort();
    private final LatencyStats windowTimes;

    private int date = -1;
    /** Where the first load starts when the loader was not positioned inside a window. */
    private int startDate;
    private long startSpan;
    private DayTable[] day;
    private boolean ended;
    private int runs;
    private DayTable[] runDay = new DayTable[0];
    private int[] runTable = new int[0];
    private int[] runPos = new int[0];
    private int[] runEnd = new int[0];
    private int[] runHi = new int[0];
    /** Per run: the times of its next rows, from its position on (read ahead in bulk, so finding a window's end reads no file). */
    private long[][] runTimes = new long[0][];
    private int[] runTimesLength = new int[0];
    private long span;
    private long windowEnd = Long.MIN_VALUE;

    /** The window's rows in load order (table by table, run by run): times, and per table its columns from index 0. */
    private long[] times = new long[0];
    private final int[] tableStart;
    private final Object[][] columns;
    private final int[] capacity;
    private int[] local = new int[0];
    private final int[] next;

    /** @param windowTimes where the time to read and order each window is recorded */
    WindowLoader(final ReplayPlan plan, final LatencyStats windowTimes) {
        this.plan = plan;
        this.windowTimes = windowTimes;
        this.tables = plan.schemas.size();
        this.windowRows = plan.settings.windowRows();
        this.tableStart = new int[tables + 1];
        this.columns = new Object[tables][];
        this.capacity = new int[tables];
        this.next = new int[tables];
        for (int t = 0; t < tables; t++) {
            columns[t] = new Object[plan.schemas.get(t).columnCount()];
        }
    }

    /**
     * Positions the loader at {@code c} (a stream's start, or where a consumer that leaves the stream
     * stands) and loads the window the cursor is in into {@code w}.
     *
     * @return false when the cursor is past the end of the replay, or at a window not loaded yet (then the next {@link #load} reads it)
     */
    boolean seek(final ReplayFrame.Cursor c, final ReplayWindow w) {
        if (c.windowEnd() == Long.MIN_VALUE) {
            // at a date's start: entered (its compressed columns decoded) by the first load, off the caller's thread
            startDate = c.date();
            startSpan = c.span();
            return false;
        }
        if (!enterDate(c.date())) {
            return false;
        }
        if (c.span() > 0) {
            span = c.span();
        }
        if (c.windowStart() != Long.MIN_VALUE) {
            for (int r = 0; r < runs; r++) {
                runPos[r] = lowerBound(r, runPos[r], c.windowStart());
                runTimesLength[r] = 0;
            }
        }
        for (int r = 0; r < runs; r++) {
            runEnd[r] = c.windowEnd() == Long.MAX_VALUE ? runHi[r] : lowerBound(r, runPos[r], c.windowEnd());
        }
        fill(c.windowStart(), c.windowEnd(), w);
        return true;
    }

    /** Loads the next window into {@code w}; false when the replay has no rows left. */
    boolean load(final ReplayWindow w) {
        if (ended) {
            return false;
        }
        if (date < 0) {
            if (!enterDate(startDate)) {
                return false;
            }
            if (startSpan > 0) {
                span = startSpan;
            }
        }
        while (true) {
            long remaining = 0;
            for (int r = 0; r < runs; r++) {
                remaining += runHi[r] - runPos[r];
            }
            if (remaining == 0) {
                if (!enterDate(date + 1)) {
                    return false;
                }
                continue;
            }
            final long t0 = System.nanoTime();
            final long start = windowEnd;
            final long end = chooseEnd(remaining);
            fill(start, end, w);
            windowTimes.record(System.nanoTime() - t0);
            return true;
        }
    }

    // ------------------------------------------------------------------ dates

    private boolean enterDate(final int d) {
        if (d >= plan.dates.length) {
            // the last date stays entered until close: a consumer that leaves the stream near the end reads its decoded columns
            ended = true;
            return false;
        }
        leaveDate();
        date = d;
        day = plan.days[d];
        int n = 0;
        for (final DayTable dt : day) {
            n += dt == null ? 0 : dt.codes.length;
        }
        if (runPos.length < n) {
            runDay = new DayTable[n];
            runTable = new int[n];
            runPos = new int[n];
            runEnd = new int[n];
            runHi = new int[n];
            runTimes = Arrays.copyOf(runTimes, n);
            runTimesLength = new int[n];
        }
        runs = 0;
        for (int t = 0; t < tables; t++) {
            final DayTable dt = day[t];
            if (dt == null) {
                continue;
            }
            dt.enter(plan.settings.scratchDir());
            for (int k = 0; k < dt.codes.length; k++) {
                runDay[runs] = dt;
                runTable[runs] = t;
                runPos[runs] = dt.lo[k];
                runHi[runs] = dt.hi[k];
                runTimesLength[runs] = 0;
                runs++;
            }
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long total = 0;
        for (int r = 0; r < runs; r++) {
            first = Math.min(first, timeAt(r, runPos[r]));
            last = Math.max(last, runDay[r].time(runHi[r] - 1));
            total += runHi[r] - runPos[r];
        }
        span = total == 0 ? 1 : Math.max(1, (long) ((double) (last - first) * windowRows / total));
        windowEnd = Long.MIN_VALUE;
        return true;
    }

    private void leaveDate() {
        if (day != null) {
            for (final DayTable dt : day) {
                if (dt != null) {
                    dt.leave();
                }
            }
            day = null;
        }
    }

    // ------------------------------------------------------------------ a window's end

    /** The end of the next window (exclusive); fills {@link #runEnd}. */
    private long chooseEnd(final long remaining) {
        if (remaining <= 2L * windowRows) {
            System.arraycopy(runHi, 0, runEnd, 0, runs);
            return Long.MAX_VALUE;
        }
        long next = Long.MAX_VALUE;
        for (int r = 0; r < runs; r++) {
            if (runPos[r] < runHi[r]) {
                next = Math.min(next, timeAt(r, runPos[r]));
            }
        }
        long low = 0;
        long high = Long.MAX_VALUE;
        long s = Math.max(1, span);
        while (true) {
            final long end = next + s < next ? Long.MAX_VALUE : next + s;
            final long c = count(end);
            if (c < windowRows / 2 && end != Long.MAX_VALUE) {
                low = s;
            } else if (c > 2L * windowRows && s > 1) {
                high = s;
            } else {
                span = s;
                return end;
            }
            if (high - low <= 1) {
                // rows sharing one timestamp (or a gap the count cannot narrow): take the larger side
                s = high == Long.MAX_VALUE ? s : high;
                final long e = next + s < next ? Long.MAX_VALUE : next + s;
                count(e);
                span = s;
                return e;
            }
            s = high == Long.MAX_VALUE ? (s > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : s * 2) : low + (high - low) / 2;
        }
    }

    /** Rows with time before {@code end} in every run from its position; fills {@link #runEnd}. */
    private long count(final long end) {
        long c = 0;
        for (int r = 0; r < runs; r++) {
            runEnd[r] = gallop(r, end);
            c += runEnd[r] - runPos[r];
        }
        return c;
    }

    /** First row at or after the run's position whose time is at least {@code t}. */
    private int gallop(final int r, final long t) {
        final int from = runPos[r];
        final int hi = runHi[r];
        if (from >= hi || timeAt(r, from) >= t) {
            return from;
        }
        int step = 1;
        int lo = from;
        while (true) {
            final int probe = lo + step;
            if (probe >= hi) {
                break;
            }
            if (timeAt(r, probe) >= t) {
                return search(r, lo + 1, probe, t);
            }
            lo = probe;
            step = step > (1 << 29) ? step : step << 1;
        }
        return search(r, lo + 1, hi, t);
    }

    /** First row in {@code [from, to)} of run {@code r} whose time is at least {@code t}, from its read-ahead times. */
    private int search(final int r, final int from, final int to, final long t) {
        int a = from;
        int b = to;
        while (a < b) {
            final int mid = (a + b) >>> 1;
            if (timeAt(r, mid) < t) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        return a;
    }

    /** Seek only: a binary search of the whole rest of the run on the file (no read-ahead yet). */
    private int lowerBound(final int r, final int from, final long t) {
        final DayTable d = runDay[r];
        int a = from;
        int b = runHi[r];
        while (a < b) {
            final int mid = (a + b) >>> 1;
            if (d.time(mid) < t) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        return a;
    }

    /**
     * Time of row {@code row} (at or after the run's position) of run {@code r}: from its read-ahead
     * buffer, which starts at the run's position and is read further on in bulk (at least 64 rows,
     * doubling) when a row past its end is asked for.
     */
    private long timeAt(final int r, final int row) {
        final int off = row - runPos[r];
        if (off < runTimesLength[r]) {
            return runTimes[r][off];
        }
        final int have = runTimesLength[r];
        final int want = Math.min(runHi[r] - runPos[r], Math.max(off + 1, Math.max(64, have * 2)));
        long[] buf = runTimes[r];
        if (buf == null || buf.length < want) {
            buf = buf == null ? new long[want] : Arrays.copyOf(buf, Math.max(want, buf.length * 2));
            runTimes[r] = buf;
        }
        runDay[r].read(TableSchema.TIME, runPos[r] + have, want - have, buf, have);
        runTimesLength[r] = want;
        return buf[off];
    }

    // ------------------------------------------------------------------ reading and ordering a window

    /** Reads the rows of every run up to {@link #runEnd}, orders them by time and gathers them into {@code w}. */
    private void fill(final long start, final long end, final ReplayWindow w) {
        long n = 0;
        for (int r = 0; r < runs; r++) {
            n += runEnd[r] - runPos[r];
        }
        if (n > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("replay window too large [rows=" + n + "]");
        }
        if (times.length < n) {
            times = new long[(int) Math.max(n, Math.min(Integer.MAX_VALUE - 16, times.length * 2L))];
        }
        int at = 0;
        int r = 0;
        for (int t = 0; t < tables; t++) {
            tableStart[t] = at;
            int tableRows = 0;
            for (int q = r; q < runs && runTable[q] == t; q++) {
                tableRows += runEnd[q] - runPos[q];
            }
            final TableSchema schema = plan.schemas.get(t);
            if (capacity[t] < tableRows) {
                final int cap = Math.max(tableRows, capacity[t] * 2);
                for (int c = 1; c < schema.columnCount(); c++) {
                    columns[t][c] = schema.type(c).newArray(cap);
                }
                capacity[t] = cap;
            }
            for (; r < runs && runTable[r] == t; r++) {
                final int count = runEnd[r] - runPos[r];
                if (count == 0) {
                    continue;
                }
                final DayTable d = runDay[r];
                timeAt(r, runEnd[r] - 1);
                System.arraycopy(runTimes[r], 0, times, at, count);
                for (int c = 1; c < schema.columnCount(); c++) {
                    d.read(c, runPos[r], count, columns[t][c], at - tableStart[t]);
                }
                at += count;
                final int left = runTimesLength[r] - count;
                System.arraycopy(runTimes[r], count, runTimes[r], 0, left);
                runTimesLength[r] = left;
                runPos[r] = runEnd[r];
            }
        }
        tableStart[tables] = at;
        windowEnd = end;
        w.date = date;
        w.day = day;
        w.start = start;
        w.end = end;
        w.span = span;
        w.rows = at;
        order(w, at);
    }

    /** Orders the loaded rows by time into {@code w}: per table, each column gathered into the merged order. */
    private void order(final ReplayWindow w, final int rows) {
        final int[] order = sort.sort(times, rows);
        if (local.length < rows) {
            local = new int[Math.max(rows, local.length + (local.length >> 1))];
        }
        for (int t = 0; t < tables; t++) {
            w.tableRows[t] = tableStart[t + 1] - tableStart[t];
            w.ensure(t, w.tableRows[t], rows);
        }
        if (tables > 1) {
            // each row's table, in merged order; per table the load positions of its rows in that order
            for (int t = 0; t < tables; t++) {
                next[t] = tableStart[t];
            }
            for (int i = 0; i < rows; i++) {
                final int p = order == null ? i : order[i];
                int t = 0;
                while (p >= tableStart[t + 1]) {
                    t++;
                }
                w.tableAt[i] = (byte) t;
                local[next[t]++] = p - tableStart[t];
            }
        }
        for (int t = 0; t < tables; t++) {
            final int n = w.tableRows[t];
            if (n == 0) {
                continue;
            }
            final int from = tableStart[t];
            final int[] idx = tables > 1 ? local : order;
            final int idxAt = tables > 1 ? from : 0;
            final TableSchema schema = plan.schemas.get(t);
            final Object[] out = w.columns[t];
            if (idx == null) {
                System.arraycopy(times, from, out[TableSchema.TIME], 0, n);
                for (int c = 1; c < schema.columnCount(); c++) {
                    System.arraycopy(columns[t][c], 0, out[c], 0, n);
                }
                continue;
            }
            gatherLongs(times, from, idx, idxAt, n, (long[]) out[TableSchema.TIME]);
            for (int c = 1; c < schema.columnCount(); c++) {
                gather(columns[t][c], idx, idxAt, n, out[c], schema.type(c).width());
            }
        }
    }

    private static void gatherLongs(final long[] src, final int base, final int[] idx, final int at, final int n, final long[] dst) {
        for (int i = 0; i < n; i++) {
            dst[i] = src[base + idx[at + i]];
        }
    }

    /** {@code dst[i] = src[idx[at + i]]} for a primitive array of {@code width}-byte values (indexes are the loader's own, in range). */
    private static void gather(final Object src, final int[] idx, final int at, final int n, final Object dst, final int width) {
        final long s = UnsafeApi.arrayBaseOffset(src.getClass());
        final long d = UnsafeApi.arrayBaseOffset(dst.getClass());
        switch (width) {
            case 8 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putLong(dst, d + ((long) i << 3), UnsafeApi.getLong(src, s + ((long) idx[at + i] << 3)));
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putInt(dst, d + ((long) i << 2), UnsafeApi.getInt(src, s + ((long) idx[at + i] << 2)));
                }
            }
            case 2 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putShort(dst, d + ((long) i << 1), UnsafeApi.getShort(src, s + ((long) idx[at + i] << 1)));
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putByte(dst, d + i, UnsafeApi.getByte(src, s + idx[at + i]));
                }
            }
        }
    }

    /** Bytes of buffers this loader holds (for the memory figures of {@code GET /api/replays}). */
    long bufferBytes() {
        long n = (long) times.length * 8 + sort.bytes() + (long) local.length * 4;
        for (int t = 0; t < tables; t++) {
            n += (long) capacity[t] * (plan.schemas.get(t).rowWidth() - 8);
        }
        return n;
    }

    void close() {
        leaveDate();
        ended = true;
        Arrays.fill(runDay, null);
    }
}
