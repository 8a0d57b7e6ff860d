package io.jtick.core.testing;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;

import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.SplittableRandom;

/**
 * Synthetic trading days as in-memory segments in arrival order, for the tests of packages below
 * the feed and the RDB (the HDB's writer, store and tiering). The shape is the synthetic feed's:
 * syms {@code S0000..}, one random-walk price in cents per sym, sizes in round lots, trade
 * conditions from {@code "@@@@@FIT"}, ten rows per update sharing one time, updates spread with
 * random gaps over 09:30–16:00 New York. The same arguments give the same rows.
 */
public final class SyntheticDays {
    private static final byte[] CONDITIONS = {'@', '@', '@', '@', '@', 'F', 'I', 'T'};
    private static final int ROWS_PER_UPDATE = 10;

    private SyntheticDays() {
    }

    /** {@code rows} rows of {@code table} (trade or quote) over {@code syms} syms on {@code date}. */
    public static MemorySegment day(final String table, final LocalDate date, final int rows, final int syms, final long seed) {
        final boolean trade = "trade".equals(table);
        if (!trade && !"quote".equals(table)) {
            throw new IllegalArgumentException("unknown table, expected trade or quote [table=" + table + "]");
        }
        final TableSchema schema = trade ? TableSchema.trade(0) : TableSchema.quote(0);
        final SplittableRandom random = new SplittableRandom(seed);
        final String[] names = new String[syms];
        final double[] prices = new double[syms];
        for (int i = 0; i < syms; i++) {
            names[i] = String.format("S%04d", i);
            prices[i] = 10 + random.nextInt(490) + random.nextInt(100) / 100.0;
        }
        final long open = date.atTime(LocalTime.of(9, 30)).atZone(ZoneId.of("America/New_York")).toInstant().toEpochMilli() * 1_000_000L;
        final long session = 23_400L * 1_000_000_000L;
        final long meanGap = Math.max(2, session / Math.max(1, rows / ROWS_PER_UPDATE));
        final SplittableRandom gaps = new SplittableRandom(seed ^ 0x5DEECE66DL);
        final MemorySegment.Builder b = MemorySegment.builder(schema, (int) date.toEpochDay());
        long time = open;
        for (int r = 0; r < rows; r++) {
            if (r > 0 && r % ROWS_PER_UPDATE == 0) {
                time += 1 + gaps.nextLong(2 * meanGap - 1);
            }
            final int s = random.nextInt(syms);
            final double price = Math.max(1, Math.rint((prices[s] + (random.nextInt(5) - 2) * 0.01) * 100) / 100);
            prices[s] = price;
            b.value(time).symbol(names[s]);
            if (trade) {
                b.value(price).value(100L * (1 + random.nextInt(20))).value(CONDITIONS[random.nextInt(CONDITIONS.length)]);
            } else {
                final double half = 0.01 * (1 + random.nextInt(3));
                b.value(Math.rint((price - half) * 100) / 100).value(Math.rint((price + half) * 100) / 100)
                    .value(100L * (1 + random.nextInt(20))).value(100L * (1 + random.nextInt(20)));
            }
            b.endRow();
        }
        return b.build();
    }
}
