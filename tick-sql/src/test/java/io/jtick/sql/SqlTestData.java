package io.jtick.sql;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;

import java.time.LocalDate;
import java.util.SplittableRandom;

/** Two days of trades and quotes in memory (the second in the layout of an HDB partition), for the SQL tests. */
public final class SqlTestData {
    public static final LocalDate DAY1 = LocalDate.of(2026, 11, 20);
    public static final LocalDate DAY2 = LocalDate.of(2026, 11, 21);

    private SqlTestData() {
    }

    /** {@code rows} trades and quotes per day over 16 syms S00..S15, 09:30 to 16:00 UTC. */
    public static MemorySource source(final int rows) {
        final MemorySource s = new MemorySource();
        day(s, DAY1, rows, 1, false);
        day(s, DAY2, rows, 2, true);
        return s;
    }

    private static void day(final MemorySource s, final LocalDate date, final int rows, final long seed, final boolean parted) {
        final int day = (int) date.toEpochDay();
        final MemorySegment.Builder trade = MemorySegment.builder(TableSchema.trade(0), day);
        final MemorySegment.Builder quote = MemorySegment.builder(TableSchema.quote(0), day);
        final SplittableRandom r = new SplittableRandom(seed);
        final long open = day * 86_400_000_000_000L + 34_200_000_000_000L;
        final long step = 23_400_000_000_000L / rows;
        for (int i = 0; i < rows; i++) {
            final String sym = String.format("S%02d", r.nextInt(16));
            final double px = 100 + r.nextInt(1000) / 100.0;
            quote.value(open + i * step).symbol(sym).value(px - 0.01).value(px + 0.01).value(100L).value(200L).endRow();
            trade.value(open + i * step + 1).symbol(sym).value(px).value(100L * r.nextInt(1, 20)).value((byte) "ABFI".charAt(r.nextInt(4)))
                .endRow();
        }
        s.add(parted ? trade.buildParted() : trade.build()).add(parted ? quote.buildParted() : quote.build());
    }
}
