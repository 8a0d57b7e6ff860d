package io.jtick.core.replay;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.schema.TableSchema;
import org.agrona.UnsafeApi;

/**
 * Reads a {@link ReplayPlan} in time order, date by date, one time window at a time, into
 * {@link ReplayWindow}s: every selected sym of every table is a sorted run of rows (the partitions
 * are sorted by sym then time); a window takes from each run the rows with {@code time < end}, orders
 * them by time ({@link TimeSort}: stable, so equal times go table by table in request order, then by
 * sym, then in recorded order) and puts every column in that order straight from where the date
 * holds its raw values ({@link DayTable#address}: the partition's map, or the decoded scratch of a
 * compressed column), so that framing it is a copy. Per row of a window that is one copy of its time,
 * the sort, and one load and store per column: each window row's partition row, in time order, says
 * where to load its values (a gather, written in sequence; it measured the same CPU per row as
 * storing each run's values at their places). The sym column is never read: every row of a run
 * holds the run's sym, so its code comes from the run (and a compressed tier never decodes it).
 *
 * <p>A window holds about {@code windowRows} rows: its end is found by galloping search from each
 * run's position, widening or narrowing the span until the count is within ½..2 × windowRows (rows
 * that share one timestamp are never split, so a window may exceed that). Memory: the window's rows
 * in load order (time, sym, partition row, sort keys and indexes: 40 bytes) for about twice
 * windowRows, and per date a few positions per selected sym. Everything is deterministic in the data,
 * so another loader {@link #seek}ing to a {@link ReplayFrame.Cursor} produces the same windows.
 *
 * <p>One thread at a time (its {@link ReplayReader} serialises loads).
 */
final class WindowLoader {
    private final ReplayPlan plan;
    private final int tables;
    private final int windowRows;
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);

    private final TimeSort sort = new TimeSort();
    private final LatencyStats windowTimes;

    private int date = -1;
    /** Where the first load starts when the loader was not positioned inside a window. */
    private int startDate;
    private long startSpan;
    private DayTable[] day;
    private boolean ended;
    private int runs;
    private int[] runTable = new int[0];
    /** Per run: its sym's partition code (every row of a run has it: the sym column is never read). */
    private int[] runSym = new int[0];
    private int[] runPos = new int[0];
    private int[] runEnd = new int[0];
    private int[] runHi = new int[0];
    /** Per run: address of its table's time column this date (row r's time at + 8r). */
    private long[] runTimes = new long[0];
    private long span;
    private long windowEnd = Long.MIN_VALUE;

    /** The window's rows in load order (table by table, run by run): their times. */
    private long[] times = new long[0];
    private final int[] tableStart;
    /** Per row in load order: its row in the partition, and its sym's code. */
    private int[] rowOf = new int[0];
    private int[] symOf = new int[0];
    /** The window's rows table by table, each table's in time order: their partition rows. */
    private int[] source = new int[0];
    /** With several tables: the window's times in merged time order, as the sort writes them. */
    private long[] sortedTimes = new long[0];
    /** Per table: the window's time and sym columns being filled. */
    private final long[][] outTimes;
    private final int[][] outSyms;
    private final int[] next;

    /** @param windowTimes where the time to read and order each window is recorded */
    WindowLoader(final ReplayPlan plan, final LatencyStats windowTimes) {
        this.plan = plan;
        this.windowTimes = windowTimes;
        this.tables = plan.schemas.size();
        this.windowRows = plan.settings.windowRows();
        this.tableStart = new int[tables + 1];
        this.next = new int[tables];
        this.outTimes = new long[tables][];
        this.outSyms = new int[tables][];
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
            runTable = new int[n];
            runSym = new int[n];
            runPos = new int[n];
            runEnd = new int[n];
            runHi = new int[n];
            runTimes = new long[n];
        }
        runs = 0;
        for (int t = 0; t < tables; t++) {
            final DayTable dt = day[t];
            if (dt == null) {
                continue;
            }
            dt.enter(plan.scratch, plan.decoders);
            for (int k = 0; k < dt.codes.length; k++) {
                runTable[runs] = t;
                runSym[runs] = dt.codes[k];
                runPos[runs] = dt.lo[k];
                runHi[runs] = dt.hi[k];
                runTimes[runs] = dt.address(TableSchema.TIME);
                runs++;
            }
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long total = 0;
        for (int r = 0; r < runs; r++) {
            first = Math.min(first, timeAt(r, runPos[r]));
            last = Math.max(last, timeAt(r, runHi[r] - 1));
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

    /** First row in {@code [from, to)} of run {@code r} whose time is at least {@code t}. */
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

    /** Seek only: a binary search of the whole rest of the run. */
    private int lowerBound(final int r, final int from, final long t) {
        return search(r, from, runHi[r], t);
    }

    /** Time of row {@code row} of run {@code r}, where its date holds it. */
    private long timeAt(final int r, final int row) {
        return UnsafeApi.getLong(null, runTimes[r] + ((long) row << 3));
    }

    // ------------------------------------------------------------------ reading and ordering a window

    /** Takes the rows of every run up to {@link #runEnd}, orders them by time and gathers them into {@code w}. */
    private void fill(final long start, final long end, final ReplayWindow w) {
        long n = 0;
        for (int r = 0; r < runs; r++) {
            n += runEnd[r] - runPos[r];
        }
        if (n > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("replay window too large [rows=" + n + "]");
        }
        if (times.length < n) {
            final int cap = (int) Math.max(n, Math.min(Integer.MAX_VALUE - 16, times.length * 2L));
            times = new long[cap];
            rowOf = new int[cap];
            symOf = new int[cap];
            source = new int[cap];
            sortedTimes = tables > 1 ? new long[cap] : sortedTimes;
        }
        int at = 0;
        int r = 0;
        for (int t = 0; t < tables; t++) {
            tableStart[t] = at;
            for (; r < runs && runTable[r] == t; r++) {
                final int from = runPos[r];
                final int count = runEnd[r] - from;
                UnsafeApi.copyMemory(null, runTimes[r] + ((long) from << 3), times, LONG_BASE + ((long) at << 3), (long) count << 3);
                java.util.Arrays.fill(symOf, at, at + count, runSym[r]);
                for (int i = 0; i < count; i++) {
                    rowOf[at + i] = from + i;
                }
                at += count;
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

    /**
     * Orders the loaded rows by time into {@code w}: each row's partition row in its table's time order
     * ({@link #source}), then every column gathered from there into the window in sequence.
     */
    private void order(final ReplayWindow w, final int n) {
        for (int t = 0; t < tables; t++) {
            w.tableRows[t] = tableStart[t + 1] - tableStart[t];
            w.ensure(t, w.tableRows[t], n);
            outTimes[t] = (long[]) w.columns[t][TableSchema.TIME];
            outSyms[t] = (int[]) w.columns[t][TableSchema.SYM];
        }
        // one table: the sort writes the times in order straight into the window
        final long[] sorted = tables > 1 ? sortedTimes : outTimes[0];
        final int[] order = sort.sort(times, n, sorted);
        final int[] src = source;
        if (tables > 1) {
            // each row's table, in merged order; per table its rows' partition rows and times in that order
            for (int t = 0; t < tables; t++) {
                next[t] = tableStart[t];
            }
            for (int i = 0; i < n; i++) {
                final int p = order == null ? i : order[i];
                int t = 0;
                while (p >= tableStart[t + 1]) {
                    t++;
                }
                w.tableAt[i] = (byte) t;
                final int at = next[t]++;
                src[at] = rowOf[p];
                outTimes[t][at - tableStart[t]] = order == null ? times[p] : sorted[i];
                outSyms[t][at - tableStart[t]] = symOf[p];
            }
        } else if (order != null) {
            final int[] outSym = outSyms[0];
            for (int i = 0; i < n; i++) {
                final int p = order[i];
                src[i] = rowOf[p];
                outSym[i] = symOf[p];
            }
        } else {
            System.arraycopy(rowOf, 0, src, 0, n);
            System.arraycopy(times, 0, outTimes[0], 0, n);
            System.arraycopy(symOf, 0, outSyms[0], 0, n);
        }
        for (int t = 0; t < tables; t++) {
            final int from = tableStart[t];
            final int m = w.tableRows[t];
            if (m == 0) {
                continue;
            }
            final DayTable d = day[t];
            final Object[] out = w.columns[t];
            for (int c = TableSchema.SYM + 1; c < out.length; c++) {
                gather(d.address(c), src, from, m, out[c], d.type(c).width());
            }
        }
    }

    /** {@code dst[i] = value of row src[at + i]} for {@code n} raw values of {@code width} bytes of a column at {@code base}. */
    private static void gather(final long base, final int[] src, final int at, final int n, final Object dst, final int width) {
        final long d = UnsafeApi.arrayBaseOffset(dst.getClass());
        switch (width) {
            case 8 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putLong(dst, d + ((long) i << 3), UnsafeApi.getLong(null, base + ((long) src[at + i] << 3)));
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putInt(dst, d + ((long) i << 2), UnsafeApi.getInt(null, base + ((long) src[at + i] << 2)));
                }
            }
            case 2 -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putShort(dst, d + ((long) i << 1), UnsafeApi.getShort(null, base + ((long) src[at + i] << 1)));
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    UnsafeApi.putByte(dst, d + i, UnsafeApi.getByte(null, base + src[at + i]));
                }
            }
        }
    }

    /** Bytes of buffers this loader holds (for the memory figures of {@code GET /api/replays}). */
    long bufferBytes() {
        return (long) times.length * 20 + (long) sortedTimes.length * 8 + sort.bytes();
    }

    void close() {
        leaveDate();
        ended = true;
    }
}
