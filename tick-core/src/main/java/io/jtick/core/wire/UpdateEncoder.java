package io.jtick.core.wire;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.netty.buffer.ByteBuf;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

import static io.jtick.core.wire.FrameDescriptor.COLUMN_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.COLUMN_HEADER_LENGTH;
import static io.jtick.core.wire.FrameDescriptor.DICT_OFFSET_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.FEED_TIME_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.FLAGS_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.LENGTH_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.ROW_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TABLE_LENGTH_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TABLE_NAME_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TP_TIME_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TYPE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.UPDATE_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.VERSION;
import static io.jtick.core.wire.FrameDescriptor.VERSION_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.align8;

/**
 * Flyweight that writes one UPDATE frame into a buffer, column by column, by absolute position.
 * Reuse one instance per thread: {@link #wrap}, set values, {@link #sym} codes index the batch's
 * dictionary built with {@link #addSym}, then {@link #finish}. Nothing is allocated per frame.
 * Values go straight to the buffer's memory (direct or heap) through a bounds-checked view of it, not
 * through Netty's setters (a reference-count and index check, and two delegations, per value); a buffer
 * with neither (a composite) is written through its setters. The buffer must not be reallocated by
 * anyone else between {@link #wrap} and {@link #finish} (the encoder re-reads its memory whenever it
 * grows it itself).
 */
public final class UpdateEncoder {
    private static final int MAX_COLUMNS = 4096;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private ByteBuf buffer;
    private int frameStart;
    private TableSchema schema;
    private int rowCount;
    private final int[] dataOffset = new int[MAX_COLUMNS];
    private int dictOffset;
    private int dictCount;
    private int dictWrite;
    /** The buffer's memory from index 0 to its capacity, when {@link #viewed}. */
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private boolean viewed;

    /** Bytes a frame of this schema, row count, and dictionary byte total (sum of sym lengths + 1 each) takes. */
    public static int frameLength(final TableSchema schema, final int rowCount, final int dictBytes) {
        int len = TABLE_NAME_OFFSET + align8(schema.nameBytes().length);
        for (int c = 0; c < schema.columnCount(); c++) {
            len += COLUMN_HEADER_LENGTH + align8(rowCount * schema.type(c).width());
        }
        return len + 4 + dictBytes;
    }

    /**
     * Starts a frame at the buffer's writer index, making room for {@code rowCount} rows and up to
     * {@code maxDictBytes} of dictionary. Column values are zero until set.
     */
    public UpdateEncoder wrap(final ByteBuf buffer, final TableSchema schema, final int rowCount, final int maxDictBytes) {
        this.buffer = buffer;
        this.schema = schema;
        this.rowCount = rowCount;
        this.frameStart = buffer.writerIndex();
        final int maxLength = frameLength(schema, rowCount, maxDictBytes);
        buffer.ensureWritable(maxLength);
        bind();
        buffer.setZero(frameStart, maxLength);
        buffer.setByte(frameStart + VERSION_OFFSET, VERSION);
        buffer.setByte(frameStart + TYPE_OFFSET, MessageType.UPDATE);
        buffer.setShortLE(frameStart + FLAGS_OFFSET, 0);
        buffer.setIntLE(frameStart + UPDATE_COUNT_OFFSET, 1);
        buffer.setIntLE(frameStart + ROW_COUNT_OFFSET, rowCount);
        buffer.setShortLE(frameStart + COLUMN_COUNT_OFFSET, schema.columnCount());
        final byte[] name = schema.nameBytes();
        buffer.setShortLE(frameStart + TABLE_LENGTH_OFFSET, name.length);
        buffer.setBytes(frameStart + TABLE_NAME_OFFSET, name);
        int pos = TABLE_NAME_OFFSET + align8(name.length);
        for (int c = 0; c < schema.columnCount(); c++) {
            final ColumnType type = schema.type(c);
            final int bytes = rowCount * type.width();
            buffer.setByte(frameStart + pos, type.code());
            buffer.setIntLE(frameStart + pos + 4, bytes);
            dataOffset[c] = frameStart + pos + COLUMN_HEADER_LENGTH;
            pos += COLUMN_HEADER_LENGTH + align8(bytes);
        }
        dictOffset = pos;
        buffer.setIntLE(frameStart + DICT_OFFSET_OFFSET, dictOffset);
        dictCount = 0;
        dictWrite = frameStart + dictOffset + 4;
        return this;
    }

    /**
     * Like {@link #wrap}, for a caller that writes every value of every column itself (a bulk copy):
     * only the header, the table name's padding, the column headers and each column's padding are
     * zeroed, not the values, so a large frame is not written twice.
     */
    public UpdateEncoder wrapForFill(final ByteBuf buffer, final TableSchema schema, final int rowCount, final int maxDictBytes) {
        this.buffer = buffer;
        this.schema = schema;
        this.rowCount = rowCount;
        this.frameStart = buffer.writerIndex();
        buffer.ensureWritable(frameLength(schema, rowCount, maxDictBytes));
        bind();
        final byte[] name = schema.nameBytes();
        final int nameEnd = TABLE_NAME_OFFSET + align8(name.length);
        buffer.setZero(frameStart, nameEnd);
        buffer.setByte(frameStart + VERSION_OFFSET, VERSION);
        buffer.setByte(frameStart + TYPE_OFFSET, MessageType.UPDATE);
        buffer.setIntLE(frameStart + UPDATE_COUNT_OFFSET, 1);
        buffer.setIntLE(frameStart + ROW_COUNT_OFFSET, rowCount);
        buffer.setShortLE(frameStart + COLUMN_COUNT_OFFSET, schema.columnCount());
        buffer.setShortLE(frameStart + TABLE_LENGTH_OFFSET, name.length);
        buffer.setBytes(frameStart + TABLE_NAME_OFFSET, name);
        int pos = nameEnd;
        for (int c = 0; c < schema.columnCount(); c++) {
            final ColumnType type = schema.type(c);
            final int bytes = rowCount * type.width();
            buffer.setLongLE(frameStart + pos, type.code() | (long) bytes << 32);
            dataOffset[c] = frameStart + pos + COLUMN_HEADER_LENGTH;
            final int padded = align8(bytes);
            if (padded > bytes) {
                buffer.setZero(dataOffset[c] + bytes, padded - bytes);
            }
            pos += COLUMN_HEADER_LENGTH + padded;
        }
        dictOffset = pos;
        buffer.setIntLE(frameStart + DICT_OFFSET_OFFSET, dictOffset);
        dictCount = 0;
        dictWrite = frameStart + dictOffset + 4;
        return this;
    }

    public UpdateEncoder flags(final int flags) {
        buffer.setShortLE(frameStart + FLAGS_OFFSET, flags);
        return this;
    }

    public UpdateEncoder sequence(final long sequence) {
        buffer.setLongLE(frameStart + SEQUENCE_OFFSET, sequence);
        return this;
    }

    public UpdateEncoder updateCount(final int count) {
        buffer.setIntLE(frameStart + UPDATE_COUNT_OFFSET, count);
        return this;
    }

    public UpdateEncoder tpTime(final long nanos) {
        buffer.setLongLE(frameStart + TP_TIME_OFFSET, nanos);
        return this;
    }

    public UpdateEncoder feedTime(final long nanos) {
        buffer.setLongLE(frameStart + FEED_TIME_OFFSET, nanos);
        return this;
    }

    /** Adds a symbol (ASCII bytes, 1..255) to the batch dictionary; returns its code. Callers dedupe. */
    public int addSym(final byte[] sym) {
        if (sym.length == 0 || sym.length > FrameDescriptor.MAX_SYM_LENGTH) {
            throw new IllegalArgumentException("symbol length must be 1..255 [length=" + sym.length + "]");
        }
        grow(1 + sym.length);
        if (viewed) {
            // a sym is a few bytes: one bounds check, then byte stores (a bulk copy's set-up costs more than the copy)
            view.boundsCheck(dictWrite, 1 + sym.length);
            final byte[] base = view.byteArray();
            final long at = view.addressOffset() + dictWrite;
            UnsafeApi.putByte(base, at, (byte) sym.length);
            for (int i = 0; i < sym.length; i++) {
                UnsafeApi.putByte(base, at + 1 + i, sym[i]);
            }
        } else {
            buffer.setByte(dictWrite, sym.length);
            buffer.setBytes(dictWrite + 1, sym);
        }
        dictWrite += 1 + sym.length;
        return dictCount++;
    }

    /** Adds a symbol copied from a buffer range (1..255 bytes) to the batch dictionary; returns its code. */
    public int addSym(final ByteBuf src, final int offset, final int length) {
        grow(1 + length);
        buffer.setByte(dictWrite, length);
        buffer.setBytes(dictWrite + 1, src, offset, length);
        dictWrite += 1 + length;
        return dictCount++;
    }

    /**
     * Adds {@code count} dictionary entries already in wire form ({@code bytes} bytes at {@code offset}
     * of {@code src}: a length byte, then the sym, per entry) in one copy.
     */
    public void addDictionary(final ByteBuf src, final int offset, final int bytes, final int count) {
        grow(bytes);
        buffer.setBytes(dictWrite, src, offset, bytes);
        dictWrite += bytes;
        dictCount += count;
    }

    /** Number of syms added to the dictionary so far. */
    public int dictCount() {
        return dictCount;
    }

    public int rowCount() {
        return rowCount;
    }

    public TableSchema schema() {
        return schema;
    }

    public UpdateEncoder timestamp(final int column, final int row, final long nanos) {
        putLong(dataOffset[column] + (row << 3), nanos);
        return this;
    }

    public UpdateEncoder sym(final int row, final int code) {
        putInt(dataOffset[TableSchema.SYM] + (row << 2), code);
        return this;
    }

    public UpdateEncoder float64(final int column, final int row, final double value) {
        putLong(dataOffset[column] + (row << 3), Double.doubleToRawLongBits(value));
        return this;
    }

    public UpdateEncoder float32(final int column, final int row, final float value) {
        putInt(dataOffset[column] + (row << 2), Float.floatToRawIntBits(value));
        return this;
    }

    public UpdateEncoder int64(final int column, final int row, final long value) {
        putLong(dataOffset[column] + (row << 3), value);
        return this;
    }

    public UpdateEncoder int32(final int column, final int row, final int value) {
        putInt(dataOffset[column] + (row << 2), value);
        return this;
    }

    public UpdateEncoder int16(final int column, final int row, final short value) {
        putShort(dataOffset[column] + (row << 1), value);
        return this;
    }

    /** byte, bool (0/1) and char (one ASCII byte) columns. */
    public UpdateEncoder int8(final int column, final int row, final int value) {
        putByte(dataOffset[column] + row, (byte) value);
        return this;
    }

    /** Sets a numeric column from a double, converting to the column's type (feeds reading text use it). */
    public UpdateEncoder number(final int column, final int row, final double value) {
        switch (schema.type(column)) {
            case FLOAT64:
                return float64(column, row, value);
            case FLOAT32:
                return float32(column, row, (float) value);
            case INT64:
            case TIMESTAMP:
                return int64(column, row, (long) value);
            case INT32:
                return int32(column, row, (int) value);
            case INT16:
                return int16(column, row, (short) value);
            case BYTE:
            case BOOL:
            case CHAR:
                return int8(column, row, (int) value);
            default:
                throw new IllegalArgumentException("not a numeric column [column=" + schema.column(column).name() + "]");
        }
    }

    /** Absolute buffer index of a column's first value (for bulk copies). */
    public int dataOffset(final int column) {
        return dataOffset[column];
    }

    public ByteBuf buffer() {
        return buffer;
    }

    /** Writes the dictionary count and frame length, moves the writer index past the frame; returns the frame length. */
    public int finish() {
        buffer.setIntLE(frameStart + dictOffset, dictCount);
        final int length = dictWrite - frameStart;
        buffer.setIntLE(frameStart + LENGTH_OFFSET, length);
        buffer.writerIndex(frameStart + length);
        buffer = null;
        viewed = false;
        view.wrap(0, 0);
        return length;
    }

    private void putLong(final int index, final long value) {
        if (viewed) {
            view.putLong(index, value, LE);
        } else {
            buffer.setLongLE(index, value);
        }
    }

    private void putInt(final int index, final int value) {
        if (viewed) {
            view.putInt(index, value, LE);
        } else {
            buffer.setIntLE(index, value);
        }
    }

    private void putShort(final int index, final short value) {
        if (viewed) {
            view.putShort(index, value, LE);
        } else {
            buffer.setShortLE(index, value);
        }
    }

    private void putByte(final int index, final byte value) {
        if (viewed) {
            view.putByte(index, value);
        } else {
            buffer.setByte(index, value);
        }
    }

    /** Makes room for {@code bytes} more of dictionary, and re-reads the buffer's memory if that moved it. */
    private void grow(final int bytes) {
        if (dictWrite + bytes > buffer.capacity()) {
            buffer.ensureWritable(dictWrite + bytes - buffer.writerIndex());
            bind();
        }
    }

    /** Points {@link #view} at the buffer's memory, index 0 to its capacity, where it has one Java can reach. */
    private void bind() {
        if (buffer.hasMemoryAddress()) {
            view.wrap(buffer.memoryAddress(), buffer.capacity());
            viewed = true;
        } else if (buffer.hasArray()) {
            view.wrap(buffer.array(), buffer.arrayOffset(), buffer.capacity());
            viewed = true;
        } else {
            viewed = false;
        }
    }
}
