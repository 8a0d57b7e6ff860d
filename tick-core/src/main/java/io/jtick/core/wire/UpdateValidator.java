package io.jtick.core.wire;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

import static io.jtick.core.wire.FrameDescriptor.COLUMN_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.COLUMN_HEADER_LENGTH;
import static io.jtick.core.wire.FrameDescriptor.DICT_OFFSET_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.HEADER_LENGTH;
import static io.jtick.core.wire.FrameDescriptor.LENGTH_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.ROW_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TABLE_LENGTH_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TABLE_NAME_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TYPE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.VERSION;
import static io.jtick.core.wire.FrameDescriptor.VERSION_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.align8;

/**
 * Checks an UPDATE frame completely before anyone trusts it: lengths, version, table, every column's
 * type and size against the schema, the dictionary's bounds and every sym code. On success returns
 * {@link ErrorCode#NONE} and allocates nothing; on failure {@link #reason()} says what was wrong.
 * {@link #validateStructure} does the same for a frame of any table, taking the column types the frame
 * names (what a journal repair can check without the tickerplant's schema). The per-row and per-sym loops
 * of a direct buffer read its memory through {@code view}, after the frame's bounds are checked once, not
 * through the buffer's accessors, each of which checks the reference count and the index again.
 */
public final class UpdateValidator {
    private final SchemaRegistry schemas;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    /** The last dictionary that validated in a direct frame: its bytes ({@code dictLength} of them) and entry count. */
    private final UnsafeBuffer lastDict = new UnsafeBuffer(new byte[64]);
    private int lastDictLength = -1;
    private int lastSymCount = -1;
    private TableSchema table;
    private int tableIndex = -1;
    private String reason;

    public UpdateValidator(final SchemaRegistry schemas) {
        this.schemas = schemas;
    }

    /** The schema of the last frame that validated. */
    public TableSchema table() {
        return table;
    }

    /** Index in the registry of the last frame that validated. */
    public int tableIndex() {
        return tableIndex;
    }

    /** Why the last frame failed, with {@code [key=value]} context. */
    public String reason() {
        return reason;
    }

    /** Validates the frame of {@code length} bytes at {@code offset}. */
    public ErrorCode validate(final ByteBuf buf, final int offset, final int length) {
        table = null;
        tableIndex = -1;
        if (length < TABLE_NAME_OFFSET + 8 || buf.getIntLE(offset + LENGTH_OFFSET) != length) {
            return fail(ErrorCode.MALFORMED_FRAME, "frame length does not match its header [length=" + length + "]");
        }
        final int version = buf.getUnsignedByte(offset + VERSION_OFFSET);
        if (version != VERSION) {
            return fail(ErrorCode.UNSUPPORTED_VERSION, "unsupported frame version [version=" + version + ", supported=" + VERSION + "]");
        }
        if (buf.getUnsignedByte(offset + TYPE_OFFSET) != MessageType.UPDATE) {
            return fail(ErrorCode.UNEXPECTED_MESSAGE, "expected an update frame [type="
                + MessageType.name(buf.getUnsignedByte(offset + TYPE_OFFSET)) + "]");
        }
        final int nameLength = buf.getUnsignedShortLE(offset + TABLE_LENGTH_OFFSET);
        if (nameLength < 1 || nameLength > TableSchema.MAX_NAME_LENGTH || TABLE_NAME_OFFSET + align8(nameLength) > length) {
            return fail(ErrorCode.MALFORMED_FRAME, "bad table name length [length=" + nameLength + "]");
        }
        final int index = schemas.indexOf(buf, offset + TABLE_NAME_OFFSET, nameLength);
        final TableSchema schema = index < 0 ? null : schemas.get(index);
        if (schema == null) {
            return fail(ErrorCode.UNKNOWN_TABLE, "unknown table [table="
                + buf.toString(offset + TABLE_NAME_OFFSET, nameLength, java.nio.charset.StandardCharsets.US_ASCII) + "]");
        }
        final ErrorCode code = body(buf, offset, length, nameLength, schema);
        if (code == ErrorCode.NONE) {
            table = schema;
            tableIndex = index;
            reason = null;
        }
        return code;
    }

    /**
     * Checks a frame of any table as {@link #validate} does, but against the column types the frame
     * itself names (each a known type, the second a symbol column) instead of a schema.
     */
    public ErrorCode validateStructure(final ByteBuf buf, final int offset, final int length) {
        table = null;
        tableIndex = -1;
        if (length < TABLE_NAME_OFFSET + 8 || buf.getIntLE(offset + LENGTH_OFFSET) != length) {
            return fail(ErrorCode.MALFORMED_FRAME, "frame length does not match its header [length=" + length + "]");
        }
        if (buf.getUnsignedByte(offset + VERSION_OFFSET) != VERSION || buf.getUnsignedByte(offset + TYPE_OFFSET) != MessageType.UPDATE) {
            return fail(ErrorCode.MALFORMED_FRAME, "not an update frame of version " + VERSION);
        }
        final int nameLength = buf.getUnsignedShortLE(offset + TABLE_LENGTH_OFFSET);
        if (nameLength < 1 || nameLength > TableSchema.MAX_NAME_LENGTH || TABLE_NAME_OFFSET + align8(nameLength) > length) {
            return fail(ErrorCode.MALFORMED_FRAME, "bad table name length [length=" + nameLength + "]");
        }
        final ErrorCode code = body(buf, offset, length, nameLength, null);
        if (code == ErrorCode.NONE) {
            reason = null;
        }
        return code;
    }

    /** Rows, columns, dictionary and sym codes, against {@code schema} or (null) the types the frame names. */
    private ErrorCode body(final ByteBuf buf, final int offset, final int length, final int nameLength, final TableSchema schema) {
        final String name = schema != null ? schema.name()
            : buf.toString(offset + TABLE_NAME_OFFSET, nameLength, java.nio.charset.StandardCharsets.US_ASCII);
        final int rows = buf.getIntLE(offset + ROW_COUNT_OFFSET);
        if (rows < 0) {
            return fail(ErrorCode.MALFORMED_FRAME, "negative row count [table=" + name + ", rows=" + rows + "]");
        }
        final int columns = buf.getUnsignedShortLE(offset + COLUMN_COUNT_OFFSET);
        if (schema != null ? columns != schema.columnCount() : columns < 2) {
            return fail(ErrorCode.WRONG_COLUMNS, "column count does not match the schema [table=" + name
                + ", columns=" + columns + ", expected=" + (schema == null ? "at least 2" : schema.columnCount()) + "]");
        }
        int pos = TABLE_NAME_OFFSET + align8(nameLength);
        int symData = -1;
        for (int c = 0; c < columns; c++) {
            if (pos + COLUMN_HEADER_LENGTH > length) {
                return fail(ErrorCode.MALFORMED_FRAME, "frame ends inside column headers [table=" + name + ", column=" + c + "]");
            }
            final int code = buf.getUnsignedByte(offset + pos);
            final ColumnType got = ColumnType.fromCode(code);
            final ColumnType expected = schema != null ? schema.type(c) : c == TableSchema.SYM ? ColumnType.SYMBOL : got;
            final String column = schema != null ? schema.column(c).name() : Integer.toString(c);
            if (expected == null || code != expected.code()) {
                return fail(ErrorCode.WRONG_TYPE, "wrong column type [table=" + name + ", column=" + column
                    + ", type=" + (got == null ? "code " + code : got.typeName()) + ", expected="
                    + (expected == null ? "a known type" : expected.typeName()) + "]");
            }
            final int bytes = buf.getIntLE(offset + pos + 4);
            if ((long) rows * expected.width() != bytes) {
                return fail(ErrorCode.MALFORMED_FRAME, "column size does not match row count [table=" + name
                    + ", column=" + column + ", bytes=" + bytes + ", rows=" + rows + "]");
            }
            if (c == TableSchema.SYM) {
                symData = offset + pos + COLUMN_HEADER_LENGTH;
            }
            pos += COLUMN_HEADER_LENGTH + align8(bytes);
            if (pos > length) {
                return fail(ErrorCode.MALFORMED_FRAME, "frame ends inside column data [table=" + name + ", column=" + column + "]");
            }
        }
        final int dictOffset = buf.getIntLE(offset + DICT_OFFSET_OFFSET);
        if (dictOffset != pos || dictOffset + 4 > length) {
            return fail(ErrorCode.MALFORMED_FRAME, "bad dictionary offset [table=" + name + ", dictOffset=" + dictOffset + "]");
        }
        final int symCount = buf.getIntLE(offset + dictOffset);
        final boolean direct = buf.hasMemoryAddress() && offset >= 0 && offset + length <= buf.capacity();
        if (direct) {
            view.wrap(buf.memoryAddress() + offset, length);
        }
        int p = dictOffset + 4;
        final int dictLength = length - p;
        final boolean seen = direct && symCount == lastSymCount && sameDictionary(p, dictLength);
        for (int i = seen ? symCount : 0; i < symCount; i++) {
            if (p >= length) {
                return fail(ErrorCode.MALFORMED_FRAME, "frame ends inside the sym dictionary [table=" + name + ", entry=" + i + "]");
            }
            final int len = direct ? view.getByte(p) & 0xFF : buf.getUnsignedByte(offset + p);
            if (len == 0) {
                return fail(ErrorCode.BAD_SYMBOL, "empty symbol in dictionary [table=" + name + ", entry=" + i + "]");
            }
            p += 1 + len;
        }
        if (seen) {
            p = length;
        }
        if (symCount < 0 || p != length) {
            return fail(ErrorCode.MALFORMED_FRAME, "sym dictionary does not end the frame [table=" + name + ", symCount=" + symCount + "]");
        }
        if (direct && !seen) {
            remember(dictOffset + 4, dictLength, symCount);
        }
        for (int r = 0; r < rows; r++) {
            final int at = symData + (r << 2);
            final int code = direct ? view.getInt(at - offset, ByteOrder.LITTLE_ENDIAN) : buf.getIntLE(at);
            if (code < 0 || code >= symCount) {
                return fail(ErrorCode.BAD_SYMBOL, "sym code outside the dictionary [table=" + name + ", row=" + r
                    + ", code=" + code + ", dictionary=" + symCount + "]");
            }
        }
        return ErrorCode.NONE;
    }

    /**
     * True when the {@code length} dictionary bytes at {@code at} in {@code view} are those of the last dictionary
     * that validated: a feed sends the same dictionary update after update, and comparing it by words, each load
     * independent of the others, is much cheaper than the walk from one length byte to the next.
     */
    private boolean sameDictionary(final int at, final int length) {
        if (length != lastDictLength) {
            return false;
        }
        int k = 0;
        for (; k + 8 <= length; k += 8) {
            if (view.getLong(at + k) != lastDict.getLong(k)) {
                return false;
            }
        }
        for (; k < length; k++) {
            if (view.getByte(at + k) != lastDict.getByte(k)) {
                return false;
            }
        }
        return true;
    }

    /** Keeps the dictionary that just validated ({@code length} bytes at {@code at} in {@code view}) for {@link #sameDictionary}. */
    private void remember(final int at, final int length, final int symCount) {
        if (lastDict.capacity() < length) {
            lastDict.wrap(new byte[Math.max(length, lastDict.capacity() * 2)]);
        }
        lastDict.putBytes(0, view, at, length);
        lastDictLength = length;
        lastSymCount = symCount;
    }

    /** What is wrong with a frame's common header, and the code to answer it with. */
    public record HeaderProblem(ErrorCode code, String reason) {
    }

    /** Checks only the common header of any frame: length and version; null when both are right. */
    public static HeaderProblem checkHeader(final ByteBuf buf, final int offset, final int length) {
        if (length < HEADER_LENGTH || buf.getIntLE(offset + LENGTH_OFFSET) != length) {
            return new HeaderProblem(ErrorCode.MALFORMED_FRAME, "frame length does not match its header [length=" + length + "]");
        }
        if (buf.getUnsignedByte(offset + VERSION_OFFSET) != VERSION) {
            return new HeaderProblem(ErrorCode.UNSUPPORTED_VERSION, "unsupported frame version [version="
                + buf.getUnsignedByte(offset + VERSION_OFFSET) + ", supported=" + VERSION + "]");
        }
        return null;
    }

    private ErrorCode fail(final ErrorCode code, final String why) {
        reason = why;
        return code;
    }
}
