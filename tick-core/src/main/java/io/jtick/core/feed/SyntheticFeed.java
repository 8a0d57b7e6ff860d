package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The KX white paper's feed simulator: updates of {@code r} random rows of the trade or quote table
 * (plus {@code ex} extra float columns) over syms {@code S0000..}, each with a random-walk price.
 * Under one seed the rows are the same run after run; only the time column (the clock's now, one
 * stamp per update, or left to the tickerplant with {@link FrameDescriptor#FLAG_STAMP_TIME}) and
 * the header's feed time differ. With {@code rowIds} the size column (trade) or bsize (quote)
 * holds the row's number instead, 1, 2, 3... in the order generated, so a consumer can check that
 * every row arrived exactly once and in order. Syms are pre-encoded; the per-update sym dictionary is deduped
 * with an int map stamped per batch: nothing is allocated per row or per update.
 */
public final class SyntheticFeed implements TickSource {
    private static final byte[] CONDITIONS = "@@@@@FIT".getBytes(StandardCharsets.US_ASCII);

    private final TableSchema schema;
    private final boolean trade;
    private final byte[][] syms;
    private final double[] prices;
    private final int[] codeBySym;
    private final int[] stampBySym;
    private final SplittableRandom random;
    private final NanoClock clock;
    private final boolean stampTime;
    private final boolean rowIds;
    private int batch;
    private long rowsRead;

    /**
     * @param table     trade or quote
     * @param ex        extra float columns
     * @param symCount  number of syms (1..1,000,000)
     * @param seed      random seed
     * @param clock     the time column's clock
     * @param stampTime leave the time column to the tickerplant
     */
    public SyntheticFeed(final String table, final int ex, final int symCount, final long seed, final NanoClock clock,
                         final boolean stampTime) {
        this(table, ex, symCount, seed, clock, stampTime, false);
    }

    /** @param rowIds number the rows 1, 2, 3... in the size (trade) or bsize (quote) column */
    public SyntheticFeed(final String table, final int ex, final int symCount, final long seed, final NanoClock clock,
                         final boolean stampTime, final boolean rowIds) {
        if (symCount < 1 || symCount > 1_000_000) {
            throw new IllegalArgumentException("syms must be 1..1000000 [syms=" + symCount + "]");
        }
        if ("trade".equals(table)) {
            schema = TableSchema.trade(ex);
            trade = true;
        } else if ("quote".equals(table)) {
            schema = TableSchema.quote(ex);
            trade = false;
        } else {
            throw new IllegalArgumentException("unknown table, expected trade or quote [table=" + table + "]");
        }
        this.clock = clock;
        this.stampTime = stampTime;
        this.rowIds = rowIds;
        this.random = new SplittableRandom(seed);
        final int digits = Math.max(4, Integer.toString(symCount - 1).length());
        syms = new byte[symCount][];
        prices = new double[symCount];
        codeBySym = new int[symCount];
        stampBySym = new int[symCount];
        for (int i = 0; i < symCount; i++) {
            final StringBuilder sb = new StringBuilder(digits + 1).append('S');
            final String n = Integer.toString(i);
            for (int p = n.length(); p < digits; p++) {
                sb.append('0');
            }
            syms[i] = sb.append(n).toString().getBytes(StandardCharsets.US_ASCII);
            prices[i] = 10 + random.nextInt(490) + random.nextInt(100) / 100.0;
        }
    }

    /** The sym name of index {@code i} ({@code S0000}...). */
    public String sym(final int i) {
        return new String(syms[i], StandardCharsets.US_ASCII);
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public long nextEventTime() {
        return NO_TIME;
    }

    @Override
    public long rowsRead() {
        return rowsRead;
    }

    @Override
    public int encodeUpdate(final UpdateEncoder enc, final ByteBuf buffer, final int rows, final long dueBefore, final long nowNanos) {
        if (rows <= 0) {
            return 0;
        }
        final int maxDict = Math.min(rows, syms.length) * (1 + syms[0].length);
        enc.wrap(buffer, schema, rows, maxDict);
        batch++;
        final long time = stampTime ? 0 : clock.epochNanos();
        final int columns = schema.columnCount();
        final int firstExtra = trade ? 5 : 6;
        for (int row = 0; row < rows; row++) {
            final int s = random.nextInt(syms.length);
            if (stampBySym[s] != batch) {
                stampBySym[s] = batch;
                codeBySym[s] = enc.addSym(syms[s]);
            }
            enc.sym(row, codeBySym[s]);
            enc.timestamp(TableSchema.TIME, row, time);
            final double price = walk(s);
            if (trade) {
                enc.float64(2, row, price);
                final long size = 100L * (1 + random.nextInt(20));
                enc.int64(3, row, rowIds ? rowsRead + row + 1 : size);
                enc.int8(4, row, CONDITIONS[random.nextInt(CONDITIONS.length)]);
            } else {
                final double half = 0.01 * (1 + random.nextInt(3));
                enc.float64(2, row, round2(price - half));
                enc.float64(3, row, round2(price + half));
                final long bsize = 100L * (1 + random.nextInt(20));
                enc.int64(4, row, rowIds ? rowsRead + row + 1 : bsize);
                enc.int64(5, row, 100L * (1 + random.nextInt(20)));
            }
            for (int c = firstExtra; c < columns; c++) {
                enc.float64(c, row, random.nextDouble());
            }
        }
        if (stampTime) {
            enc.flags(FrameDescriptor.FLAG_STAMP_TIME);
        }
        enc.feedTime(nowNanos);
        enc.finish();
        rowsRead += rows;
        return rows;
    }

    private double walk(final int s) {
        double p = prices[s] + (random.nextInt(5) - 2) * 0.01;
        if (p < 1) {
            p = 1;
        }
        p = round2(p);
        prices[s] = p;
        return p;
    }

    private static double round2(final double v) {
        return Math.rint(v * 100) / 100;
    }

    @Override
    public void close() {
        // nothing to release
    }
}
