package io.jtick.core.query;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.QuerySource;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Plain rows for reference computations, and the same rows as engine segments in every layout. */
public final class TestTables {
    public static final TableSchema TRADE = TableSchema.trade(0);
    public static final TableSchema QUOTE = TableSchema.quote(0);
    public static final long NANOS_PER_DAY = 86_400_000_000_000L;
    /** 2026-11-20 and 2026-11-21. */
    public static final int DAY1 = 20_777;
    public static final int DAY2 = 20_778;

    private TestTables() {
    }

    public record Trade(long time, String sym, double price, long size, char cond) {
    }

    public record Quote(long time, String sym, double bid, double ask, long bsize, long asize) {
    }

    /** How a segment holds its rows. */
    public enum Layout {
        /** Arrival order, a row list per sym (like the RDB), in memory. */
        ARRIVAL,
        /** Sorted by sym then time, a range per sym (like an HDB partition). */
        PARTED,
        /** A real RDB fed through update frames. */
        RDB
    }

    /**
     * Trades of one day in time order (ties included) over syms A..E, one of them rare, starting at
     * 09:30 of {@code day}.
     */
    public static List<Trade> trades(final long seed, final int n, final int day) {
        return trades(seed, n, day, 34_200_000_000_000L);
    }

    /** Trades from {@code startOfDayNanos} after midnight of {@code day}, about 13 a second. */
    public static List<Trade> trades(final long seed, final int n, final int day, final long startOfDayNanos) {
        final SplittableRandom r = new SplittableRandom(seed);
        final String[] syms = {"A", "B", "C", "D", "E"};
        final List<Trade> out = new ArrayList<>(n);
        long t = day * NANOS_PER_DAY + startOfDayNanos;
        for (int i = 0; i < n; i++) {
            t += r.nextInt(4) == 0 ? 0 : r.nextLong(1, 200_000_000L);
            final String sym = r.nextInt(50) == 0 ? "E" : syms[r.nextInt(4)];
            final double price = Math.round((100 + r.nextDouble() * 10) * 100) / 100.0;
            out.add(new Trade(t, sym, price, 100L * r.nextInt(1, 20), "ABC".charAt(r.nextInt(3))));
        }
        return out;
    }

    public static List<Quote> quotes(final long seed, final int n, final int day) {
        return quotes(seed, n, day, 34_199_000_000_000L);
    }

    /** Quotes of syms A..D from {@code startOfDayNanos} after midnight of {@code day}, about 13 a second. */
    public static List<Quote> quotes(final long seed, final int n, final int day, final long startOfDayNanos) {
        final SplittableRandom r = new SplittableRandom(seed);
        final String[] syms = {"A", "B", "C", "D"};
        final List<Quote> out = new ArrayList<>(n);
        long t = day * NANOS_PER_DAY + startOfDayNanos;
        for (int i = 0; i < n; i++) {
            t += r.nextInt(5) == 0 ? 0 : r.nextLong(1, 150_000_000L);
            final double mid = Math.round((100 + r.nextDouble() * 10) * 100) / 100.0;
            final double half = 0.01 * r.nextInt(1, 4);
            out.add(new Quote(t, syms[r.nextInt(4)], mid - half, mid + half, 100L * r.nextInt(1, 9), 100L * r.nextInt(1, 9)));
        }
        return out;
    }

    /** Rows in the order a layout keeps them (parted: by sym, then time, stable). */
    public static List<Trade> ordered(final List<Trade> rows, final Layout layout) {
        if (layout != Layout.PARTED) {
            return rows;
        }
        final List<Trade> out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(Trade::sym).thenComparingLong(Trade::time));
        return out;
    }

    public static MemorySegment tradeSegment(final List<Trade> rows, final int day, final boolean parted) {
        final MemorySegment.Builder b = MemorySegment.builder(TRADE, day);
        for (final Trade t : rows) {
            b.row(t.time(), t.sym(), t.price(), t.size(), t.cond());
        }
        return parted ? b.buildParted() : b.build();
    }

    public static MemorySegment quoteSegment(final List<Quote> rows, final int day, final boolean parted) {
        final MemorySegment.Builder b = MemorySegment.builder(QUOTE, day);
        for (final Quote q : rows) {
            b.row(q.time(), q.sym(), q.bid(), q.ask(), q.bsize(), q.asize());
        }
        return parted ? b.buildParted() : b.build();
    }

    /** A source holding the trades (and quotes) of one day in a layout. */
    public static QuerySource source(final Layout layout, final int day, final List<Trade> trades, final List<Quote> quotes) {
        if (layout == Layout.RDB) {
            return rdb(day, trades, quotes);
        }
        final MemorySource s = new MemorySource().table(TRADE).table(QUOTE);
        s.add(tradeSegment(trades, day, layout == Layout.PARTED));
        if (quotes != null) {
            s.add(quoteSegment(quotes, day, layout == Layout.PARTED));
        }
        return s;
    }

    /** A real RDB on {@code day}, fed through encoded update frames of up to 97 rows. */
    public static RealtimeDatabase rdb(final int day, final List<Trade> trades, final List<Quote> quotes) {
        final RealtimeDatabase rdb = new RealtimeDatabase(new TickMetrics());
        final Map<String, TableSchema> schemas = new LinkedHashMap<>();
        schemas.put("trade", TRADE);
        schemas.put("quote", QUOTE);
        rdb.onSubscribed(new ControlFrames.Subscribed(0, 0, day, schemas));
        final long[] seq = {0};
        feed(rdb, TRADE, trades.size(), seq, (enc, row, r) -> {
            final Trade t = trades.get(row);
            enc.timestamp(0, r, t.time()).float64(2, r, t.price()).int64(3, r, t.size()).int8(4, r, t.cond());
            return t.sym();
        });
        if (quotes != null) {
            feed(rdb, QUOTE, quotes.size(), seq, (enc, row, r) -> {
                final Quote q = quotes.get(row);
                enc.timestamp(0, r, q.time()).float64(2, r, q.bid()).float64(3, r, q.ask()).int64(4, r, q.bsize())
                    .int64(5, r, q.asize());
                return q.sym();
            });
        }
        return rdb;
    }

    /** Writes the non-sym columns of one row and returns its sym. */
    public interface RowWriter {
        String write(UpdateEncoder enc, int row, int frameRow);
    }

    public static void feed(final RealtimeDatabase rdb, final TableSchema schema, final int rows, final long[] seq, final RowWriter w) {
        final ByteBuf buf = Unpooled.buffer(1 << 16);
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateDecoder dec = new UpdateDecoder();
        for (int start = 0; start < rows; start += 97) {
            final int n = Math.min(97, rows - start);
            buf.clear();
            enc.wrap(buf, schema, n, 16 * 8);
            enc.sequence(++seq[0]).tpTime(0);
            final Map<String, Integer> dict = new LinkedHashMap<>();
            for (int r = 0; r < n; r++) {
                final String sym = w.write(enc, start + r, r);
                Integer code = dict.get(sym);
                if (code == null) {
                    code = enc.addSym(sym.getBytes(StandardCharsets.US_ASCII));
                    dict.put(sym, code);
                }
                enc.sym(r, code);
            }
            enc.finish();
            rdb.onUpdate(schema, dec.wrap(buf, 0), 0);
        }
    }
}
