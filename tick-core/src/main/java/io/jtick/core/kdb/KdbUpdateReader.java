package io.jtick.core.kdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.jtick.core.kdb.KdbDescriptor.NANOS_1970_2000;
import static io.jtick.core.kdb.KdbDescriptor.NULL_LONG;

/**
 * Converts the arguments of a kdb+ {@code .u.upd[`t; data]} into one native UPDATE frame, once, at
 * the edge (docs/kdb-ipc.md): after this the update is indistinguishable from a native feed's.
 *
 * <p>{@code data} is a table (columns matched by name), a general list of columns in schema order, or
 * a general list of atoms (one row); a column is a vector, or a general list of atoms (as Python
 * clients send lists). {@code time} may be left out (one column fewer, or no such table column): the
 * tickerplant then stamps every row, as tick.q does. A timespan {@code time} is the time since the
 * trading date's midnight ({@code dayStartNanos}); a timestamp is taken as it is. The {@code sym}
 * column takes symbols, or strings (char vectors) as Polars clients send them. A value is widened
 * when that loses nothing (short → int → long, real → float) and never narrowed: anything else is a
 * {@code type} error naming table, column, expected and received kdb+ types. Nulls of a widened
 * integer stay nulls ({@code 0Ni} → {@code 0Nj}); a null or over-long symbol is refused.
 *
 * <p>One instance per connection (or thread); a conversion allocates nothing but the frame's pooled
 * buffer, except for scratch arrays that grow to the largest update seen. Positions come from a
 * {@link KdbReader} that bounds-checks; a malformed message throws {@link KdbReader.Malformed}.
 */
public final class KdbUpdateReader {
    private static final int VECTOR = 0;
    private static final int ATOM = 1;
    private static final int LIST = 2;

    private final SchemaRegistry schemas;
    private final byte[][][] columnNames;
    private final UpdateEncoder enc = new UpdateEncoder();
    private int[] colPos = new int[16];
    private int[] mode = new int[16];
    private int[] codes = new int[256];
    private int[] slots = new int[512];
    private int[] slotStamp = new int[512];
    private int stamp;
    private int[] entryStart = new int[256];
    private int[] entryLength = new int[256];
    private int entries;
    private int rows;
    /** The message's memory (index 0 to its capacity) while its syms are interned, when it is direct. */
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private boolean direct;
    private ErrorCode code = ErrorCode.NONE;
    private String reason;

    public KdbUpdateReader(final SchemaRegistry schemas) {
        this.schemas = schemas;
        this.columnNames = new byte[schemas.size()][][];
        for (int t = 0; t < schemas.size(); t++) {
            final TableSchema s = schemas.get(t);
            columnNames[t] = new byte[s.columnCount()][];
            for (int c = 0; c < s.columnCount(); c++) {
                columnNames[t][c] = s.column(c).name().getBytes(StandardCharsets.US_ASCII);
            }
        }
    }

    /** Why the last {@link #read} returned null, as an error code (NONE after a success). */
    public ErrorCode code() {
        return code;
    }

    /** Why the last {@link #read} returned null, with {@code [key=value]} context. */
    public String reason() {
        return reason;
    }

    /** Rows of the last frame read. */
    public int rows() {
        return rows;
    }

    /**
     * The UPDATE frame for table {@code tablePos} (a symbol or string) and {@code dataPos}, a new
     * buffer the caller owns; null when the arguments do not fit the schema ({@link #code()},
     * {@link #reason()} say why).
     */
    public ByteBuf read(final KdbReader r, final int tablePos, final int dataPos, final ByteBufAllocator alloc,
                       final long dayStartNanos) {
        code = ErrorCode.NONE;
        reason = null;
        if (!r.isTextual(tablePos)) {
            return fail(ErrorCode.UNKNOWN_TABLE, "type [argument=table expected=symbol got=" + KdbType.name(r.type(tablePos)) + "]");
        }
        final int t = schemas.indexOf(r.buffer(), r.textStart(tablePos), r.textLength(tablePos));
        if (t < 0) {
            return fail(ErrorCode.UNKNOWN_TABLE, "unknown table [table=" + r.text(tablePos) + "]");
        }
        final TableSchema schema = schemas.get(t);
        final int n = schema.columnCount();
        if (colPos.length < n) {
            colPos = new int[n];
            mode = new int[n];
        }
        Arrays.fill(colPos, 0, n, -1);
        final int dt = r.type(dataPos);
        final boolean table = dt == KdbType.TABLE;
        if (table) {
            if (!columnsByName(r, dataPos, schema, t)) {
                return null;
            }
        } else if (dt == KdbType.LIST) {
            final int k = r.count(dataPos);
            if (k != n && k != n - 1) {
                return fail(ErrorCode.WRONG_COLUMNS, "length [table=" + schema.name() + " columns=" + k + " expected=" + n
                    + " or " + (n - 1) + " without time]");
            }
            int item = KdbReader.values(dataPos);
            for (int c = n - k; c < n; c++) {
                colPos[c] = item;
                item = r.skip(item);
            }
        } else {
            return fail(ErrorCode.WRONG_TYPE, "type [table=" + schema.name() + " argument=data expected=table|list got="
                + KdbType.name(dt) + "]");
        }
        final boolean oneRow = !table && isOneRow(r, n);
        if (!shape(r, schema, oneRow)) {
            return null;
        }
        if (!symbols(r, schema)) {
            return null;
        }
        int dictBytes = 0;
        for (int e = 0; e < entries; e++) {
            dictBytes += 1 + entryLength[e];
        }
        final ByteBuf out = alloc.directBuffer(UpdateEncoder.frameLength(schema, rows, dictBytes));
        enc.wrap(out, schema, rows, dictBytes);
        if (colPos[TableSchema.TIME] < 0) {
            enc.flags(FrameDescriptor.FLAG_STAMP_TIME);
        }
        for (int c = 0; c < n; c++) {
            if (c == TableSchema.SYM) {
                for (int row = 0; row < rows; row++) {
                    enc.sym(row, codes[row]);
                }
            } else if (colPos[c] >= 0) {
                column(r, schema.type(c), c, colPos[c], mode[c], out, dayStartNanos);
            }
        }
        for (int e = 0; e < entries; e++) {
            enc.addSym(r.buffer(), entryStart[e], entryLength[e]);
        }
        enc.finish();
        return out;
    }

    /** Table form: each column found by name; only {@code time} may be missing. */
    private boolean columnsByName(final KdbReader r, final int dataPos, final TableSchema schema, final int t) {
        final int dict = dataPos + 2;
        final int keys = dict + 1;
        if (r.type(dict) != KdbType.DICT || r.type(keys) != KdbType.SYMBOL) {
            throw new KdbReader.Malformed("table is not a flip of a dictionary with symbol keys");
        }
        final int k = r.count(keys);
        final int vals = r.skip(keys);
        if (r.type(vals) != KdbType.LIST || r.count(vals) != k) {
            throw new KdbReader.Malformed("table columns are not a general list of as many columns as names");
        }
        int name = KdbReader.values(keys);
        int item = KdbReader.values(vals);
        for (int j = 0; j < k; j++) {
            final int nameEnd = r.symbolEnd(name);
            final int c = columnIndex(r.buffer(), name, nameEnd - name, t);
            if (c < 0 || colPos[c] >= 0) {
                fail(ErrorCode.WRONG_COLUMNS, (c < 0 ? "unknown column" : "duplicate column") + " [table=" + schema.name() + " column="
                    + r.buffer().toString(name, nameEnd - name, StandardCharsets.ISO_8859_1) + "]");
                return false;
            }
            colPos[c] = item;
            item = r.skip(item);
            name = nameEnd + 1;
        }
        for (int c = 1; c < schema.columnCount(); c++) {
            if (colPos[c] < 0) {
                fail(ErrorCode.WRONG_COLUMNS, "missing column [table=" + schema.name() + " column=" + schema.column(c).name() + "]");
                return false;
            }
        }
        return true;
    }

    private int columnIndex(final ByteBuf buf, final int from, final int length, final int t) {
        final byte[][] names = columnNames[t];
        for (int c = 0; c < names.length; c++) {
            final byte[] nm = names[c];
            if (nm.length == length && equal(buf, from, nm)) {
                return c;
            }
        }
        return -1;
    }

    private static boolean equal(final ByteBuf buf, final int from, final byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (buf.getByte(from + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** A list of atoms is one row (the sym may come as a string). */
    private boolean isOneRow(final KdbReader r, final int n) {
        for (int c = 0; c < n; c++) {
            final int p = colPos[c];
            if (p >= 0) {
                final int t = r.type(p);
                if (t >= 0 && !(c == TableSchema.SYM && t == KdbType.CHAR)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Sets {@code rows} and each column's mode; checks every column's type and length. */
    private boolean shape(final KdbReader r, final TableSchema schema, final boolean oneRow) {
        rows = -1;
        for (int c = 0; c < schema.columnCount(); c++) {
            final int p = colPos[c];
            if (p < 0) {
                continue;
            }
            final int t = r.type(p);
            final int got;
            if (oneRow) {
                mode[c] = ATOM;
                got = 1;
                if (!accepts(schema, c, itemType(c, t))) {
                    return typeError(schema, c, t);
                }
                r.skip(p);
            } else if (t == KdbType.LIST) {
                mode[c] = LIST;
                got = r.count(p);
                int item = KdbReader.values(p);
                for (int k = 0; k < got; k++) {
                    final int it = r.type(item);
                    if (!accepts(schema, c, itemType(c, it))) {
                        return typeError(schema, c, it);
                    }
                    item = r.skip(item);
                }
            } else if (t > 0 && t <= KdbType.TIME) {
                mode[c] = VECTOR;
                if (!accepts(schema, c, t)) {
                    return typeError(schema, c, t);
                }
                got = r.count(p);
                r.need(KdbReader.values(p), t == KdbType.SYMBOL ? got : (long) got * KdbType.width(t));
            } else {
                return typeError(schema, c, t);
            }
            if (rows < 0) {
                rows = got;
            } else if (got != rows) {
                fail(ErrorCode.WRONG_COLUMNS, "length [table=" + schema.name() + " column=" + schema.column(c).name() + " rows=" + got
                    + " expected=" + rows + "]");
                return false;
            }
        }
        return true;
    }

    /**
     * The type an atom or list item of type {@code t} offers column {@code c}: an atom's own type,
     * {@link KdbType#CHAR} for a string given for the sym column, else 0 (nothing a column takes).
     */
    private static int itemType(final int c, final int t) {
        return t < 0 ? -t : t == KdbType.CHAR && c == TableSchema.SYM ? KdbType.SYMBOL : 0;
    }

    /** Whether column {@code c} takes kdb+ values of (positive) type {@code kt}: its own type, or one it widens losslessly. */
    private static boolean accepts(final TableSchema schema, final int c, final int kt) {
        final ColumnType type = schema.type(c);
        return switch (type) {
            case TIMESTAMP -> kt == KdbType.TIMESTAMP || c == TableSchema.TIME && kt == KdbType.TIMESPAN;
            case SYMBOL -> kt == KdbType.SYMBOL;
            case FLOAT64 -> kt == KdbType.FLOAT || kt == KdbType.REAL;
            case FLOAT32 -> kt == KdbType.REAL;
            case INT64 -> kt == KdbType.LONG || kt == KdbType.INT || kt == KdbType.SHORT;
            case INT32 -> kt == KdbType.INT || kt == KdbType.SHORT;
            case INT16 -> kt == KdbType.SHORT;
            case BYTE -> kt == KdbType.BYTE;
            case BOOL -> kt == KdbType.BOOLEAN;
            case CHAR -> kt == KdbType.CHAR;
        };
    }

    private boolean typeError(final TableSchema schema, final int c, final int got) {
        final int expected = KdbType.of(schema.type(c), c == TableSchema.TIME && schema.timeOfDay());
        fail(ErrorCode.WRONG_TYPE, "type [table=" + schema.name() + " column=" + schema.column(c).name() + " expected="
            + KdbType.name(expected) + " got=" + KdbType.name(got) + "]");
        return false;
    }

    /** Interns the sym column's values into the frame's dictionary: {@code codes[row]}, entries. */
    private boolean symbols(final KdbReader r, final TableSchema schema) {
        if (codes.length < rows) {
            codes = new int[Math.max(rows, codes.length * 2)];
        }
        int cap = slots.length;
        while (cap < rows * 2) {
            cap <<= 1;
        }
        if (cap != slots.length) {
            slots = new int[cap];
            slotStamp = new int[cap];
        }
        if (++stamp == 0) {
            Arrays.fill(slotStamp, 0);
            stamp = 1;
        }
        entries = 0;
        final ByteBuf buf = r.buffer();
        // each sym's bytes are hashed and compared one by one: through a view of the message, not a Netty getter per byte
        direct = buf.hasMemoryAddress();
        view.wrap(direct ? buf.memoryAddress() : 0, direct ? buf.capacity() : 0);
        final int pos = colPos[TableSchema.SYM];
        int p = mode[TableSchema.SYM] == VECTOR ? KdbReader.values(pos) : mode[TableSchema.SYM] == LIST ? KdbReader.values(pos) : pos;
        for (int row = 0; row < rows; row++) {
            final int t = r.type(mode[TableSchema.SYM] == VECTOR ? pos : p);
            final int start;
            final int length;
            if (mode[TableSchema.SYM] == VECTOR) {
                start = p;
                length = r.symbolEnd(p) - p;
                p = start + length + 1;
            } else if (t == KdbType.CHAR) {
                start = KdbReader.values(p);
                length = r.count(p);
                p = start + length;
            } else {
                start = p + 1;
                length = r.symbolEnd(start) - start;
                p = start + length + 1;
            }
            if (length == 0 || length > FrameDescriptor.MAX_SYM_LENGTH) {
                fail(ErrorCode.BAD_SYMBOL, (length == 0 ? "null symbol" : "symbol too long") + " [table=" + schema.name()
                    + " column=sym row=" + row + (length == 0 ? "" : " length=" + length + " max=" + FrameDescriptor.MAX_SYM_LENGTH) + "]");
                return false;
            }
            codes[row] = intern(buf, start, length);
        }
        return true;
    }

    private int intern(final ByteBuf buf, final int start, final int length) {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + byteAt(buf, start + i);
        }
        h ^= h >>> 16;
        final int mask = slots.length - 1;
        int i = h & mask;
        while (slotStamp[i] == stamp) {
            final int e = slots[i];
            if (entryLength[e] == length && sameBytes(buf, entryStart[e], start, length)) {
                return e;
            }
            i = (i + 1) & mask;
        }
        if (entries == entryStart.length) {
            entryStart = Arrays.copyOf(entryStart, entries * 2);
            entryLength = Arrays.copyOf(entryLength, entries * 2);
        }
        entryStart[entries] = start;
        entryLength[entries] = length;
        slotStamp[i] = stamp;
        slots[i] = entries;
        return entries++;
    }

    private boolean sameBytes(final ByteBuf buf, final int a, final int b, final int length) {
        for (int i = 0; i < length; i++) {
            if (byteAt(buf, a + i) != byteAt(buf, b + i)) {
                return false;
            }
        }
        return true;
    }

    private byte byteAt(final ByteBuf buf, final int index) {
        return direct ? view.getByte(index) : buf.getByte(index);
    }

    /** Writes column {@code c} of {@code rows} values from the kdb+ object at {@code pos}. */
    private void column(final KdbReader r, final ColumnType type, final int c, final int pos, final int m, final ByteBuf out,
                        final long dayStart) {
        final int to = enc.dataOffset(c);
        final int w = type.width();
        final ByteBuf buf = r.buffer();
        if (m == VECTOR) {
            final int kt = r.type(pos);
            final int from = KdbReader.values(pos);
            final int kw = KdbType.width(kt);
            if (r.littleEndian() && kw == w && type != ColumnType.TIMESTAMP && sameType(type, kt)) {
                out.setBytes(to, buf, from, rows * w);
                return;
            }
            for (int row = 0; row < rows; row++) {
                put(out, type, to + row * w, r, kt, from + row * kw, dayStart);
            }
        } else if (m == ATOM) {
            put(out, type, to, r, -r.type(pos), pos + 1, dayStart);
        } else {
            int item = KdbReader.values(pos);
            for (int row = 0; row < rows; row++) {
                final int kt = -r.type(item);
                put(out, type, to + row * w, r, kt, item + 1, dayStart);
                item += 1 + KdbType.width(kt);
            }
        }
    }

    private static boolean sameType(final ColumnType type, final int kt) {
        return KdbType.of(type, false) == kt;
    }

    /** One value of kdb+ type {@code kt} at {@code at}, converted to {@code type}, written at {@code to}. */
    private static void put(final ByteBuf out, final ColumnType type, final int to, final KdbReader r, final int kt, final int at,
                            final long dayStart) {
        switch (type) {
            case FLOAT64 -> out.setLongLE(to, Double.doubleToRawLongBits(kt == KdbType.REAL
                ? Float.intBitsToFloat(r.i32(at)) : Double.longBitsToDouble(r.i64(at))));
            case FLOAT32 -> out.setIntLE(to, r.i32(at));
            case TIMESTAMP -> {
                final long v = r.i64(at);
                out.setLongLE(to, v == NULL_LONG ? NULL_LONG : v + (kt == KdbType.TIMESPAN ? dayStart : NANOS_1970_2000));
            }
            case INT64 -> out.setLongLE(to, integer(r, kt, at));
            case INT32 -> {
                final long v = integer(r, kt, at);
                out.setIntLE(to, v == NULL_LONG ? Integer.MIN_VALUE : (int) v);
            }
            case INT16 -> out.setShortLE(to, r.i16(at));
            case BYTE, BOOL, CHAR -> out.setByte(to, r.i8(at));
            default -> throw new IllegalStateException("not a value column [type=" + type + "]");
        }
    }

    /** A short, int or long value; a null of a narrower type reads as the long null. */
    private static long integer(final KdbReader r, final int kt, final int at) {
        return switch (kt) {
            case KdbType.SHORT -> {
                final short v = r.i16(at);
                yield v == Short.MIN_VALUE ? NULL_LONG : v;
            }
            case KdbType.INT -> {
                final int v = r.i32(at);
                yield v == Integer.MIN_VALUE ? NULL_LONG : v;
            }
            default -> r.i64(at);
        };
    }

    private ByteBuf fail(final ErrorCode c, final String why) {
        code = c;
        reason = why;
        return null;
    }
}
