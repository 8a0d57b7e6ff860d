package io.jtick.core.replay;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * Encodes a {@link ReplayWindow}'s rows (already in time order) as UPDATE frames: per frame, the syms
 * it holds become its dictionary in order of first appearance (a generation stamp per sym id, so
 * nothing is cleared between frames), then each column is copied straight into the frame's memory
 * when it has an address.
 *
 * <p>State, all scratch reused frame after frame: {@code stamp[t]}/{@code frameCode[t]} (per sym id of
 * table t: the generation that last saw it, its code in that frame), {@code generation}, and per row
 * of the frame {@code codes} (its frame sym code), {@code firstSeen} (the sym ids in order of
 * appearance). One thread at a time, as its reader.
 */
final class WindowEncoder {
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final UpdateEncoder encoder = new UpdateEncoder();
    private final int[][] stamp;
    private final int[][] frameCode;
    private int generation;
    private int[] codes = new int[0];
    private int[] firstSeen = new int[0];

    WindowEncoder(final int tables) {
        this.stamp = new int[tables][];
        this.frameCode = new int[tables][];
    }

    /**
     * Encodes rows {@code from..from+n} of table {@code t}'s window {@code columns} (in time order) as one
     * UPDATE frame; the frame carries {@code sequence} (the rows replayed once it is sent).
     */
    ByteBuf encode(final ByteBufAllocator alloc, final TableSchema schema, final int t, final DayTable d, final Object[] columns,
                   final int from, final int n, final long sequence) {
        final int[] syms = (int[]) columns[TableSchema.SYM];
        if (stamp[t] == null || stamp[t].length < d.symBytes.length) {
            stamp[t] = new int[d.symBytes.length];
            frameCode[t] = new int[d.symBytes.length];
        }
        final int[] st = stamp[t];
        final int[] fc = frameCode[t];
        if (codes.length < n) {
            codes = new int[n];
            firstSeen = new int[n];
        }
        final int gen = ++generation;
        int dictCount = 0;
        int dictBytes = 0;
        for (int i = 0; i < n; i++) {
            final int code = syms[from + i];
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
            copy(codes, 0, n, buf, encoder.dataOffset(TableSchema.SYM), 4, direct);
            copy(columns[TableSchema.TIME], from, n, buf, encoder.dataOffset(TableSchema.TIME), 8, direct);
            for (int c = 2; c < schema.columnCount(); c++) {
                copy(columns[c], from, n, buf, encoder.dataOffset(c), schema.type(c).width(), direct);
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
}
