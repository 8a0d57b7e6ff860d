package io.jtick.lab.compression;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.feed.TickSource;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.time.LocalDate;

/**
 * Fills in-memory tables without a tickerplant: frames from a {@link TickSource} are encoded and
 * appended to a {@link RealtimeTable} exactly as the RDB would append them off the wire. Used to
 * build days of data for the HDB, the compression study and benchmarks.
 */
public final class TableLoader {
    private TableLoader() {
    }

    /** Loads up to {@code maxRows} rows of {@code source}, {@code rowsPerUpdate} per frame. */
    public static RealtimeTable load(final TickSource source, final SymbolCatalog symbols, final long maxRows, final int rowsPerUpdate) {
        final int initial = (int) Math.min(Math.max(maxRows, 1), 1 << 24);
        final RealtimeTable table = new RealtimeTable(source.schema(), symbols, initial);
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateDecoder dec = new UpdateDecoder();
        final ByteBuf buf = Unpooled.directBuffer(1 << 20);
        try {
            long rows = 0;
            while (rows < maxRows) {
                buf.clear();
                final int want = (int) Math.min(rowsPerUpdate, maxRows - rows);
                final int n = source.encodeUpdate(enc, buf, want, Long.MAX_VALUE, 0);
                if (n == 0) {
                    break;
                }
                dec.wrap(buf, 0);
                table.append(source.schema(), dec);
                rows += n;
            }
            return table;
        } finally {
            buf.release();
        }
    }

    /**
     * The synthetic trading day ({@link SyntheticDay}) as an RDB table: {@code rows} rows of
     * {@code table} (trade or quote) over {@code syms} syms, times spread over 09:30–16:00 New York
     * on {@code date} with random gaps, ten rows per update sharing a time.
     */
    public static RealtimeTable syntheticDay(final String table, final LocalDate date, final int rows, final int syms, final long seed,
                                             final SymbolCatalog symbols) {
        return load(SyntheticDay.feed(table, date, rows, syms, seed), symbols, rows, SyntheticDay.ROWS_PER_UPDATE);
    }
}
