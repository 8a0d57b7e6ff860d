package io.jtick.core.replay;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * Encodes a {@link ReplayReader}'s window rows as UPDATE frames: per frame, the syms it holds become
 * its dictionary in order of first appearance (a generation stamp per sym id, so nothing is cleared
 * between frames), then each column is copied (rows in load order) or gathered (rows in time order)
 * straight into the frame's memory when it has an address.
 *
 * <p>State, all scratch reused frame after frame: {@code stamp[t]}/{@code frameCode[t]} (per sym id of
 * table t: the generation that last saw it, its code in that frame), {@code generation}, and per row
 * of the frame {@code src} (its position in the table's window columns), {@code codes} (its frame sym
 * code), {@code firstSeen} (the sym ids in order of appearance). One thread at a time, as its reader.
 */
final class WindowEncoder {
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final UpdateEncoder encoder = new UpdateEncoder();
    private final int[][] stamp;
    private final int[][] frameCode;
    private int generation;
    private int[] src = new int[0];
    private int[] codes = new int[0];
    private int[] firstSeen = new int[0];

    WindowEncoder(final int tables) {
        this.stamp = new int[tables][];
        this.frameCode = new int[tables][];
    }

    /** Table {@code t} has {@code count} sym ids on the date being entered: its per-sym scratch fits them. */
    void symIds(final int t, final int count) {
        if (stamp[t] == null || stamp[t].length < count) {
            stamp[t] = new int[count];
            frameCode[t] = new int[count];
        }
    }

    /**
     * Encodes rows {@code from..from+n} of the window (in {@code order}, null: as loaded) as one UPDATE
     * frame of table {@code t}, whose rows are at {@code base..} of {@code times} and at {@code 0..} of
     * its {@code columns}; the frame carries {@code sequence} (the rows replayed once it is sent).
     */
    ByteBuf encode(final ByteBufAllocator alloc, final TableSchema schema, final int t, final DayTable d, final Object[] columns,
                   final long[] times, final int[] order, final int base, final int from, final int n, final long sequence) {
        final int[] syms = (int[]) columns[TableSchema.SYM];
        final int[] st = stamp[t];
        final int[] fc = frameCode[t];
        if (src.length < n) {
            src = new int[n];
            codes = new int[n];
            firstSeen = new int[n];
        }
        final int gen = ++generation;
        int dictCount = 0;
        int dictBytes = 0;
        for (int i = 0; i < n; i++) {
            final int w = (order == null ? from + i : order[from + i]) - base;
            src[i] = w;
            final int code = syms[w];
            if (st[code] != gen) {
                st[code] = gen;
                fc[code] = dictCount;
                firstSeen[dictCount++] = code;
                dictBytes += 1 + d.symBytes[code].length;
            }
            codes[i] = fc[code];
        }
        final int length = UpdateEncoder.frameLength(schema, n, dictBytes);
        final ByteBuf buf = alloc.directBuffer(length, length);
        try {
            encoder.wrapForFill(buf, schema, n, dictBytes);
            for (int k = 0; k < dictCount; k++) {
                encoder.addSym(d.symBytes[firstSeen[k]]);
            }
            final boolean direct = NATIVE_LE && buf.hasMemoryAddress();
            final boolean identity = order == null;
            copy(codes, 0, n, buf, encoder.dataOffset(TableSchema.SYM), 4, direct);
            if (identity) {
                copy(times, from, n, buf, encoder.dataOffset(TableSchema.TIME), 8, direct);
            } else {
                gatherTimes(times, base, n, buf, encoder.dataOffset(TableSchema.TIME), direct);
            }
            for (int c = 2; c < schema.columnCount(); c++) {
                if (identity) {
                    copy(columns[c], from - base, n, buf, encoder.dataOffset(c), schema.type(c).width(), direct);
                } else {
                    gather(columns[c], n, buf, encoder.dataOffset(c), schema.type(c), direct);
                }
            }
            encoder.sequence(sequence);
            encoder.finish();
            return buf;
        } catch (final RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /** Copies {@code n} values of a primitive array from {@code at} into the frame at {@code index}. */
    private static void copy(final Object array, final int at, final int n, final ByteBuf buf, final int index, final int width,
                             final boolean direct) {
        if (direct) {
            UnsafeApi.copyMemory(array, UnsafeApi.arrayBaseOffset(array.getClass()) + (long) at * width, null,
                buf.memoryAddress() + index, (long) n * width);
            return;
        }
        for (int i = 0; i < n; i++) {
            switch (width) {
                case 8 -> buf.setLongLE(index + (i << 3), UnsafeApi.getLong(array, UnsafeApi.arrayBaseOffset(array.getClass())
                    + ((long) (at + i) << 3)));
                case 4 -> buf.setIntLE(index + (i << 2), UnsafeApi.getInt(array, UnsafeApi.arrayBaseOffset(array.getClass())
                    + ((long) (at + i) << 2)));
                case 2 -> buf.setShortLE(index + (i << 1), UnsafeApi.getShort(array, UnsafeApi.arrayBaseOffset(array.getClass())
                    + ((long) (at + i) << 1)));
                default -> buf.setByte(index + i, UnsafeApi.getByte(array, UnsafeApi.arrayBaseOffset(array.getClass()) + at + i));
            }
        }
    }

    private void gatherTimes(final long[] times, final int base, final int n, final ByteBuf buf, final int index,
                             final boolean direct) {
        final int[] s = src;
        final long[] v = times;
        if (direct) {
            final long a = buf.memoryAddress() + index;
            for (int i = 0; i < n; i++) {
                UnsafeApi.putLong(a + ((long) i << 3), v[s[i] + base]);
            }
        } else {
            for (int i = 0; i < n; i++) {
                buf.setLongLE(index + (i << 3), v[s[i] + base]);
            }
        }
    }

    /** Writes the values at {@link #src}{@code [0..n)} of one column into the frame at {@code index}, in order. */
    private void gather(final Object column, final int n, final ByteBuf buf, final int index, final ColumnType type,
                        final boolean direct) {
        final int[] s = src;
        final long a = direct ? buf.memoryAddress() + index : 0;
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] v = (long[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putLong(a + ((long) i << 3), v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setLongLE(index + (i << 3), v[s[i]]);
                    }
                }
            }
            case FLOAT64 -> {
                final double[] v = (double[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putDouble(a + ((long) i << 3), v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setLongLE(index + (i << 3), Double.doubleToRawLongBits(v[s[i]]));
                    }
                }
            }
            case INT32, SYMBOL -> {
                final int[] v = (int[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putInt(a + ((long) i << 2), v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setIntLE(index + (i << 2), v[s[i]]);
                    }
                }
            }
            case FLOAT32 -> {
                final float[] v = (float[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putFloat(a + ((long) i << 2), v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setIntLE(index + (i << 2), Float.floatToRawIntBits(v[s[i]]));
                    }
                }
            }
            case INT16 -> {
                final short[] v = (short[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putShort(a + ((long) i << 1), v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setShortLE(index + (i << 1), v[s[i]]);
                    }
                }
            }
            default -> {
                final byte[] v = (byte[]) column;
                if (direct) {
                    for (int i = 0; i < n; i++) {
                        UnsafeApi.putByte(a + i, v[s[i]]);
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        buf.setByte(index + i, v[s[i]]);
                    }
                }
            }
        }
    }
}
