package io.jtick.bench;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Builds trade update frames ({@link TableSchema#trade}) the way a feed does: the batch dictionary
 * holds the distinct syms of the update, rows cycle through a fixed sym universe, and the int64
 * {@code size} column carries the row's global number (so a receiver can prove exactly-once, in order).
 */
public final class TradeFrames {
    public static final int PRICE = 2;
    public static final int SIZE = 3;
    public static final int COND = 4;
    public static final int FIRST_EXTRA = 5;

    private TradeFrames() {
    }

    /** {@code n} symbols {@code S0000, S0001, ...}, all of the same length. */
    public static byte[][] syms(final int n) {
        final byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            out[i] = String.format("S%04d", i).getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }

    /** Upper bound of the frame length {@link #encode} writes. */
    public static int maxLength(final TableSchema schema, final int rows, final byte[][] syms) {
        return UpdateEncoder.frameLength(schema, rows, dictBytes(rows, syms));
    }

    private static int dictBytes(final int rows, final byte[][] syms) {
        return Math.min(rows, syms.length) * (1 + syms[0].length);
    }

    /**
     * Appends one update of {@code rows} rows to {@code buf} (at its writer index): rows
     * {@code first .. first+rows-1}, sym of row k is {@code syms[(first + k) % syms.length]}.
     *
     * @return the frame length
     */
    public static int encode(final UpdateEncoder enc, final ByteBuf buf, final TableSchema schema, final int rows, final long first,
                      final byte[][] syms, final long timeNanos, final long feedNanos) {
        final int nsym = syms.length;
        final int distinct = Math.min(rows, nsym);
        final int base = (int) (first % nsym);
        enc.wrap(buf, schema, rows, dictBytes(rows, syms));
        enc.feedTime(feedNanos);
        for (int k = 0; k < distinct; k++) {
            int s = base + k;
            if (s >= nsym) {
                s -= nsym;
            }
            enc.addSym(syms[s]);
        }
        final int columns = schema.columnCount();
        for (int k = 0; k < rows; k++) {
            final long row = first + k;
            final double price = 100.0 + (row % 1000) * 0.01;
            enc.timestamp(TableSchema.TIME, k, timeNanos);
            enc.sym(k, k % distinct);
            enc.float64(PRICE, k, price);
            enc.int64(SIZE, k, row);
            enc.int8(COND, k, 'A');
            for (int c = FIRST_EXTRA; c < columns; c++) {
                enc.float64(c, k, price);
            }
        }
        return enc.finish();
    }
}
