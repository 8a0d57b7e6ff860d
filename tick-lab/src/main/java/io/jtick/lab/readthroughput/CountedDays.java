package io.jtick.lab.readthroughput;

import io.jtick.core.hdb.ColumnEncoding;
import io.jtick.core.hdb.EncodingPolicy;
import io.jtick.core.hdb.PartitionWriter;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Days of data for the replay study and benchmark: the synthetic white-paper trading day with a row
 * counter column {@code n} (0, 1, 2... in arrival order), so that a consumer can check that every row
 * arrived exactly once, written as an HDB partition in a chosen encoding.
 */
public final class CountedDays {
    /** The row counter column's name. */
    public static final String COUNTER = "n";
    private static final byte[] CONDITIONS = {'@', '@', '@', '@', '@', 'F', 'I', 'T'};
    private static final int ROWS_PER_UPDATE = 10;

    private CountedDays() {
    }

    /** {@code trade(time, sym, price, size, cond, n)}: the built-in trade table plus the row counter. */
    public static TableSchema countedTrade() {
        final List<ColumnDef> cols = new ArrayList<>(TableSchema.trade(0).columns());
        cols.add(new ColumnDef(COUNTER, ColumnType.INT64));
        return new TableSchema("trade", cols);
    }

    /**
     * A synthetic trading day of {@link #countedTrade()}: {@code rows} rows over {@code syms} syms
     * ({@code S0000...}), ten rows per update sharing one time, updates spread with random gaps over
     * 09:30–16:00 New York; {@code n} counts rows in arrival order. The same arguments give the same rows.
     */
    public static MemorySegment synthetic(final LocalDate date, final int rows, final int syms, final long seed) {
        final TableSchema schema = countedTrade();
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
            b.value(time).symbol(names[s]).value(price).value(100L * (1 + random.nextInt(20)))
                .value(CONDITIONS[random.nextInt(CONDITIONS.length)]).value((long) r).endRow();
        }
        return b.build();
    }

    /** Writes {@code day} as partition {@code date} under {@code root} in {@code encoding} (plain, lz4, auto/zstd:3...). */
    public static PartitionWriter.Written write(final Path root, final LocalDate date, final MemorySegment day, final String encoding)
        throws IOException {
        final EncodingPolicy policy = EncodingPolicy.uniform(ColumnEncoding.parse(encoding));
        return new PartitionWriter(root, policy).write(date, List.of(day));
    }
}
