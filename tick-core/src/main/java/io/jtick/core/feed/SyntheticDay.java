package io.jtick.core.feed;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The one synthetic trading day: the white paper's feed ({@link SyntheticFeed}, its rows and syms
 * {@code S0000..}) over one session, 09:30–16:00 New York, {@value #ROWS_PER_UPDATE} rows per
 * update sharing one time, updates spread over the session with random gaps (mean: the session
 * over the number of updates). The same arguments give the same rows. Tests of every module, the
 * laboratory and the benchmarks build their days here: as the feed itself ({@link #feed}), as an
 * in-memory segment in arrival order ({@link #segment}), optionally with a row counter column.
 */
public final class SyntheticDay {
    /** Rows per update: the rows of one update share a time. */
    public static final int ROWS_PER_UPDATE = 10;
    /** Where the session is: New York. */
    public static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    /** The session opens at 09:30 local time. */
    public static final LocalTime OPEN = LocalTime.of(9, 30);
    /** The session's length, 09:30 to 16:00, in nanoseconds. */
    public static final long SESSION_NANOS = 23_400L * 1_000_000_000L;
    /** The gaps' random stream is seeded with the day's seed xor this, apart from the rows'. */
    private static final long GAP_SEED = 0x5DEECE66DL;

    private SyntheticDay() {
    }

    /** The session's open on {@code date} in {@code zone}, epoch nanoseconds. */
    public static long open(final LocalDate date, final ZoneId zone) {
        return date.atTime(OPEN).atZone(zone).toInstant().toEpochMilli() * 1_000_000L;
    }

    /**
     * The time of each update of a day of {@code rows} rows, {@code rowsPerUpdate} per update: the
     * first call returns the open (New York), each later call the previous time plus a random gap
     * of 1..2×mean−1 ns, the mean being the session over the number of updates (at least 2 ns).
     */
    public static NanoClock updateTimes(final LocalDate date, final int rows, final int rowsPerUpdate, final long seed) {
        final long meanGap = Math.max(2, SESSION_NANOS / Math.max(1, rows / rowsPerUpdate));
        final SplittableRandom gaps = new SplittableRandom(seed ^ GAP_SEED);
        final long[] now = {open(date, NEW_YORK)};
        return () -> {
            final long t = now[0];
            now[0] += 1 + gaps.nextLong(2 * meanGap - 1);
            return t;
        };
    }

    /**
     * The feed of the day: {@code table} (trade or quote) over {@code syms} syms, stamped by
     * {@link #updateTimes} for {@code rows} rows of {@value #ROWS_PER_UPDATE} per update. Its
     * updates must be asked for {@value #ROWS_PER_UPDATE} rows at a time (the last may be fewer).
     */
    public static SyntheticFeed feed(final String table, final LocalDate date, final int rows, final int syms, final long seed) {
        return new SyntheticFeed(table, 0, syms, seed, updateTimes(date, rows, ROWS_PER_UPDATE, seed), false);
    }

    /** {@code rows} rows of {@code table} (trade or quote) over {@code syms} syms on {@code date}, in arrival order. */
    public static MemorySegment segment(final String table, final LocalDate date, final int rows, final int syms, final long seed) {
        return segment(table, date, rows, syms, seed, null);
    }

    /**
     * As {@link #segment(String, LocalDate, int, int, long)}, plus, when {@code counter} is not null,
     * an int64 column of that name last counting the rows 0, 1, 2... in arrival order (so that a
     * consumer can check that every row arrived exactly once).
     */
    public static MemorySegment segment(final String table, final LocalDate date, final int rows, final int syms, final long seed,
                                        final String counter) {
        final SyntheticFeed feed = feed(table, date, rows, syms, seed);
        final TableSchema schema = counter == null ? feed.schema() : counted(feed.schema(), counter);
        final int columns = feed.schema().columnCount();
        final MemorySegment.Builder b = MemorySegment.builder(schema, (int) date.toEpochDay());
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateDecoder dec = new UpdateDecoder();
        final String[] symByCode = new String[ROWS_PER_UPDATE];
        final ByteBuf buf = Unpooled.directBuffer(1 << 16);
        try {
            for (int at = 0; at < rows;) {
                buf.clear();
                final int n = feed.encodeUpdate(enc, buf, Math.min(ROWS_PER_UPDATE, rows - at), Long.MAX_VALUE, 0);
                dec.wrap(buf, 0);
                Arrays.fill(symByCode, null);
                for (int row = 0; row < n; row++) {
                    final int code = dec.symCode(row);
                    if (symByCode[code] == null) {
                        symByCode[code] = dec.symString(code);
                    }
                    b.value(dec.timestamp(row)).symbol(symByCode[code]);
                    for (int c = 2; c < columns; c++) {
                        copy(feed.schema(), dec, c, row, b);
                    }
                    if (counter != null) {
                        b.value((long) (at + row));
                    }
                    b.endRow();
                }
                at += n;
            }
        } finally {
            buf.release();
        }
        return b.build();
    }

    /** {@code schema} plus an int64 column {@code counter} last. */
    public static TableSchema counted(final TableSchema schema, final String counter) {
        final List<ColumnDef> cols = new ArrayList<>(schema.columns());
        cols.add(new ColumnDef(counter, ColumnType.INT64));
        return new TableSchema(schema.name(), cols);
    }

    private static void copy(final TableSchema schema, final UpdateDecoder dec, final int c, final int row, final MemorySegment.Builder b) {
        switch (schema.type(c)) {
            case FLOAT64:
                b.value(dec.float64(c, row));
                break;
            case FLOAT32:
                b.value(dec.float32(c, row));
                break;
            case INT64:
            case TIMESTAMP:
                b.value(dec.int64(c, row));
                break;
            case INT32:
                b.value(dec.int32(c, row));
                break;
            case INT16:
                b.value(dec.int16(c, row));
                break;
            case BYTE:
            case BOOL:
            case CHAR:
                b.value(dec.int8(c, row));
                break;
            default:
                throw new IllegalStateException("the synthetic feed has no such column [column=" + schema.columns().get(c).name()
                    + ", type=" + schema.type(c) + "]");
        }
    }
}
