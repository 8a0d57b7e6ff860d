package io.jtick.lab.readthroughput;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * Days of data for the read-throughput study and the replay benchmark: the synthetic white-paper trading day with a row
 * counter column {@code n} (0, 1, 2... in arrival order), so that a consumer can check that every row
 * arrived exactly once, written as an HDB partition in a chosen encoding.
 */
public final class CountedDays {
    /** The row counter column's name. */
    public static final String COUNTER = "n";

    private CountedDays() {
    }

    /** {@code trade(time, sym, price, size, cond, n)}: the built-in trade table plus the row counter. */
    public static TableSchema countedTrade() {
        return SyntheticDay.counted(TableSchema.trade(0), COUNTER);
    }

    /**
     * The synthetic trading day ({@link SyntheticDay}) of {@link #countedTrade()}: {@code rows} rows
     * over {@code syms} syms ({@code S0000...}), ten rows per update sharing one time, updates spread
     * with random gaps over 09:30–16:00 New York; {@code n} counts rows in arrival order. The same
     * arguments give the same rows.
     */
    public static MemorySegment synthetic(final LocalDate date, final int rows, final int syms, final long seed) {
        return SyntheticDay.segment("trade", date, rows, syms, seed, COUNTER);
    }

    /** Writes {@code day} as partition {@code date} under {@code root} in {@code encoding} (plain, lz4, auto/zstd:3...). */
    public static PartitionWriter.Written write(final Path root, final LocalDate date, final MemorySegment day, final String encoding)
        throws IOException {
        final EncodingPolicy policy = EncodingPolicy.uniform(ColumnEncoding.parse(encoding));
        return new PartitionWriter(root, policy).write(date, List.of(day));
    }
}
