package io.jtick.core.wire;

import io.jtick.core.schema.TableSchema;
import io.netty.buffer.ByteBuf;
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
import static io.jtick.core.wire.FrameDescriptor.UPDATE_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.align8;

/**
 * Flyweight reader of one UPDATE frame that {@link UpdateValidator} has accepted (positions are
 * trusted here). {@link #wrap} costs a walk over the column headers; reads are absolute. The values of
 * a frame in direct memory are read through {@code view}, a bounds-checked view of the frame's own
 * bytes, instead of the buffer's accessors, each of which checks the reference count and the index
 * again (through every slice on the way): a read outside the frame still throws.
 */
public final class UpdateDecoder {
    private static final int MAX_COLUMNS = 4096;

    private ByteBuf buffer;
    private int offset;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    /** The frame is in direct memory and {@code view} covers it. */
    private boolean direct;
    private final int[] dataOffset = new int[MAX_COLUMNS];
    private int columnCount;
    private int dictStart;
    private int symCount;
    private int[] symOffsets = new int[256];
    private boolean symOffsetsKnown;

    public UpdateDecoder wrap(final ByteBuf buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        final int length = buffer.getIntLE(offset + LENGTH_OFFSET);
        direct = buffer.hasMemoryAddress() && offset >= 0 && length >= 0 && offset + length <= buffer.capacity();
        if (direct) {
            view.wrap(buffer.memoryAddress() + offset, length);
        }
        this.columnCount = ushortAt(offset + COLUMN_COUNT_OFFSET);
        int pos = offset + TABLE_NAME_OFFSET + align8(ushortAt(offset + TABLE_LENGTH_OFFSET));
        for (int c = 0; c < columnCount; c++) {
            final int bytes = intAt(pos + 4);
            dataOffset[c] = pos + COLUMN_HEADER_LENGTH;
            pos += COLUMN_HEADER_LENGTH + align8(bytes);
        }
        dictStart = offset + intAt(offset + DICT_OFFSET_OFFSET);
        symCount = intAt(dictStart);
        symOffsetsKnown = false;
        return this;
    }

    /** The dictionary entries' positions, found on first use: a reader that maps whole dictionaries never walks them. */
    private int[] symOffsets() {
        if (!symOffsetsKnown) {
            if (symOffsets.length < symCount) {
                symOffsets = new int[Math.max(symCount, symOffsets.length * 2)];
            }
            int p = dictStart + 4;
            for (int i = 0; i < symCount; i++) {
                symOffsets[i] = p;
                p += 1 + ubyteAt(p);
            }
            symOffsetsKnown = true;
        }
        return symOffsets;
    }

    public ByteBuf buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public int frameLength() {
        return intAt(offset + LENGTH_OFFSET);
    }

    public int flags() {
        return buffer.getUnsignedShortLE(offset + FLAGS_OFFSET);
    }

    public long sequence() {
        return longAt(offset + SEQUENCE_OFFSET);
    }

    public int updateCount() {
        return buffer.getIntLE(offset + UPDATE_COUNT_OFFSET);
    }

    public int rowCount() {
        return intAt(offset + ROW_COUNT_OFFSET);
    }

    public long tpTime() {
        return longAt(offset + TP_TIME_OFFSET);
    }

    public long feedTime() {
        return longAt(offset + FEED_TIME_OFFSET);
    }

    public int columnCount() {
        return columnCount;
    }

    public int tableNameOffset() {
        return offset + TABLE_NAME_OFFSET;
    }

    public int tableNameLength() {
        return buffer.getUnsignedShortLE(offset + TABLE_LENGTH_OFFSET);
    }

    /** Allocates: for errors, tests and tools, not the hot path. */
    public String tableName() {
        return buffer.toString(tableNameOffset(), tableNameLength(), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Absolute index of a column's first value. */
    public int dataOffset(final int column) {
        return dataOffset[column];
    }

    public int symCount() {
        return symCount;
    }

    /** Absolute index of dictionary entry {@code code}'s first byte. */
    public int symOffset(final int code) {
        return symOffsets()[code] + 1;
    }

    public int symLength(final int code) {
        return ubyteAt(symOffsets()[code]);
    }

    /** Absolute index of the first dictionary entry (its length byte): the entries run from here to the end of the frame. */
    public int dictionaryOffset() {
        return dictStart + 4;
    }

    /** Bytes of the dictionary entries ({@code symCount} times a length byte and the symbol), the last bytes of the frame. */
    public int dictionaryLength() {
        return offset + frameLength() - dictStart - 4;
    }

    /** Allocates: for tools and tests. */
    public String symString(final int code) {
        return buffer.toString(symOffset(code), symLength(code), java.nio.charset.StandardCharsets.US_ASCII);
    }

    public int symCode(final int row) {
        return intAt(dataOffset[TableSchema.SYM] + (row << 2));
    }

    public long timestamp(final int row) {
        return longAt(dataOffset[TableSchema.TIME] + (row << 3));
    }

    public long int64(final int column, final int row) {
        return longAt(dataOffset[column] + (row << 3));
    }

    public double float64(final int column, final int row) {
        return Double.longBitsToDouble(longAt(dataOffset[column] + (row << 3)));
    }

    public float float32(final int column, final int row) {
        return Float.intBitsToFloat(intAt(dataOffset[column] + (row << 2)));
    }

    public int int32(final int column, final int row) {
        return intAt(dataOffset[column] + (row << 2));
    }

    public short int16(final int column, final int row) {
        return direct ? view.getShort(dataOffset[column] + (row << 1) - offset, ByteOrder.LITTLE_ENDIAN)
            : buffer.getShortLE(dataOffset[column] + (row << 1));
    }

    public byte int8(final int column, final int row) {
        return direct ? view.getByte(dataOffset[column] + row - offset) : buffer.getByte(dataOffset[column] + row);
    }

    /** The int64 at absolute index {@code at}: by address within the frame when it is direct. */
    private long longAt(final int at) {
        return direct ? view.getLong(at - offset, ByteOrder.LITTLE_ENDIAN) : buffer.getLongLE(at);
    }

    private int intAt(final int at) {
        return direct ? view.getInt(at - offset, ByteOrder.LITTLE_ENDIAN) : buffer.getIntLE(at);
    }

    private int ushortAt(final int at) {
        return direct ? view.getShort(at - offset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF : buffer.getUnsignedShortLE(at);
    }

    private int ubyteAt(final int at) {
        return direct ? view.getByte(at - offset) & 0xFF : buffer.getUnsignedByte(at);
    }

    /** Reads any column's value as a double (tools, tests, CSV). */
    public double number(final TableSchema schema, final int column, final int row) {
        switch (schema.type(column)) {
            case FLOAT64:
                return float64(column, row);
            case FLOAT32:
                return float32(column, row);
            case INT64:
            case TIMESTAMP:
                return int64(column, row);
            case INT32:
            case SYMBOL:
                return int32(column, row);
            case INT16:
                return int16(column, row);
            default:
                return int8(column, row);
        }
    }
}
