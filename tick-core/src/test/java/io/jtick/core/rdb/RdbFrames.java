package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test frames: column-major data in, an UPDATE frame out (through the real encoder). */
final class RdbFrames {
    /** A table with every column type. */
    static final TableSchema ALL = TableSchema.of("all",
        new ColumnDef("f64", ColumnType.FLOAT64),
        new ColumnDef("f32", ColumnType.FLOAT32),
        new ColumnDef("i64", ColumnType.INT64),
        new ColumnDef("i32", ColumnType.INT32),
        new ColumnDef("i16", ColumnType.INT16),
        new ColumnDef("b", ColumnType.BYTE),
        new ColumnDef("flag", ColumnType.BOOL),
        new ColumnDef("c", ColumnType.CHAR),
        new ColumnDef("ts", ColumnType.TIMESTAMP));

    private RdbFrames() {
    }

    /**
     * Writes one UPDATE frame at the buffer's writer index and returns its offset.
     *
     * @param dict  the batch dictionary in the order wanted (may hold unused syms); null: first appearance
     * @param other values of columns 2.. as primitive arrays matching their types
     */
    static int write(final ByteBuf buf, final TableSchema schema, final long sequence, final long tpTime,
                     final long[] time, final String[] sym, final String[] dict, final Object... other) {
        final List<String> d = new ArrayList<>();
        if (dict != null) {
            d.addAll(List.of(dict));
        }
        for (final String s : sym) {
            if (!d.contains(s)) {
                d.add(s);
            }
        }
        int dictBytes = 0;
        for (final String s : d) {
            dictBytes += 1 + s.length();
        }
        final int offset = buf.writerIndex();
        final UpdateEncoder enc = new UpdateEncoder().wrap(buf, schema, time.length, dictBytes);
        enc.sequence(sequence).tpTime(tpTime);
        for (final String s : d) {
            enc.addSym(s.getBytes(StandardCharsets.US_ASCII));
        }
        for (int r = 0; r < time.length; r++) {
            enc.timestamp(TableSchema.TIME, r, time[r]);
            enc.sym(r, d.indexOf(sym[r]));
        }
        for (int c = 2; c < schema.columnCount(); c++) {
            final Object col = other[c - 2];
            for (int r = 0; r < time.length; r++) {
                switch (schema.type(c)) {
                    case TIMESTAMP:
                    case INT64:
                        enc.int64(c, r, ((long[]) col)[r]);
                        break;
                    case FLOAT64:
                        enc.float64(c, r, ((double[]) col)[r]);
                        break;
                    case FLOAT32:
                        enc.float32(c, r, ((float[]) col)[r]);
                        break;
                    case INT32:
                        enc.int32(c, r, ((int[]) col)[r]);
                        break;
                    case INT16:
                        enc.int16(c, r, ((short[]) col)[r]);
                        break;
                    default:
                        enc.int8(c, r, ((byte[]) col)[r]);
                        break;
                }
            }
        }
        enc.finish();
        return offset;
    }

    static UpdateDecoder decode(final ByteBuf buf, final int offset) {
        return new UpdateDecoder().wrap(buf, offset);
    }

    /** Random column-major data for {@link #ALL}. */
    static final class AllData {
        final long[] time;
        final String[] sym;
        final double[] f64;
        final float[] f32;
        final long[] i64;
        final int[] i32;
        final short[] i16;
        final byte[] b;
        final byte[] flag;
        final byte[] c;
        final long[] ts;

        AllData(final java.util.Random rnd, final int n, final long t0, final String[] universe) {
            time = new long[n];
            sym = new String[n];
            f64 = new double[n];
            f32 = new float[n];
            i64 = new long[n];
            i32 = new int[n];
            i16 = new short[n];
            b = new byte[n];
            flag = new byte[n];
            c = new byte[n];
            ts = new long[n];
            for (int r = 0; r < n; r++) {
                time[r] = t0 + r * 1_000L + rnd.nextInt(1000);
                sym[r] = universe[rnd.nextInt(universe.length)];
                f64[r] = rnd.nextGaussian() * 100;
                f32[r] = rnd.nextFloat();
                i64[r] = rnd.nextLong();
                i32[r] = rnd.nextInt();
                i16[r] = (short) rnd.nextInt();
                b[r] = (byte) rnd.nextInt();
                flag[r] = (byte) rnd.nextInt(2);
                c[r] = (byte) ('A' + rnd.nextInt(26));
                ts[r] = rnd.nextLong();
            }
        }

        int write(final ByteBuf buf, final long sequence, final String[] dict) {
            return RdbFrames.write(buf, ALL, sequence, 0, time, sym, dict, f64, f32, i64, i32, i16, b, flag, c, ts);
        }
    }
}
