package io.jtick.core.kdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;

import static io.jtick.core.kdb.KdbDescriptor.NANOS_1970_2000;
import static io.jtick.core.kdb.KdbDescriptor.NULL_LONG;

/**
 * Writes one native UPDATE frame as the async message kdb+ subscribers receive, {@code (`upd; `t; table)}
 * (u.q's {@code .u.pub}), little-endian: the table's columns in schema order, each as its kdb+ vector
 * ({@link KdbType#of}); numeric columns are copied as blocks, syms are written out from the frame's
 * dictionary, {@code time} becomes a timespan since {@code dayStartNanos} when the schema declares it a
 * time of day, else a kdb+ timestamp (nulls stay nulls). The tickerplant calls it once per update and
 * distinct sym list, never per subscriber. One instance per thread; allocates only the message's
 * pooled buffer.
 */
public final class KdbUpdateWriter {
    private static final byte[] UPD = "upd".getBytes(StandardCharsets.US_ASCII);

    private final UpdateDecoder src = new UpdateDecoder();

    /** The {@code (`upd;`t;table)} message of the validated frame at {@code offset}, a new buffer the caller owns. */
    public ByteBuf write(final ByteBuf frame, final int offset, final TableSchema schema, final long dayStartNanos,
                         final ByteBufAllocator alloc) {
        final UpdateDecoder d = src.wrap(frame, offset);
        final int rows = d.rowCount();
        final int n = schema.columnCount();
        int symBytes = 0;
        for (int r = 0; r < rows; r++) {
            symBytes += d.symLength(d.symCode(r)) + 1;
        }
        int body = 6 + 2 + UPD.length + 2 + schema.nameBytes().length + KdbWriter.tableHeaderLength(schema) + n * 6 + symBytes;
        for (int c = 0; c < n; c++) {
            if (c != TableSchema.SYM) {
                body += rows * schema.type(c).width();
            }
        }
        final ByteBuf b = KdbWriter.begin(alloc, KdbDescriptor.ASYNC, body);
        KdbWriter.list(b, 3);
        KdbWriter.symbol(b, UPD);
        KdbWriter.symbol(b, schema.nameBytes());
        KdbWriter.tableHeader(b, schema);
        for (int c = 0; c < n; c++) {
            final ColumnType type = schema.type(c);
            final boolean timeOfDay = c == TableSchema.TIME && schema.timeOfDay();
            KdbWriter.vector(b, KdbType.of(type, timeOfDay), rows);
            final int from = d.dataOffset(c);
            if (type == ColumnType.SYMBOL) {
                for (int r = 0; r < rows; r++) {
                    final int code = d.symCode(r);
                    b.writeBytes(frame, d.symOffset(code), d.symLength(code)).writeByte(0);
                }
            } else if (type == ColumnType.TIMESTAMP) {
                final long shift = timeOfDay ? dayStartNanos : NANOS_1970_2000;
                for (int r = 0; r < rows; r++) {
                    final long v = frame.getLongLE(from + (r << 3));
                    b.writeLongLE(v == NULL_LONG ? NULL_LONG : v - shift);
                }
            } else {
                b.writeBytes(frame, from, rows * type.width());
            }
        }
        return KdbWriter.end(b);
    }
}
