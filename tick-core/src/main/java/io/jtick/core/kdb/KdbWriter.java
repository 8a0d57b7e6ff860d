package io.jtick.core.kdb;

import io.jtick.core.schema.TableSchema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;

import static io.jtick.core.kdb.KdbDescriptor.HEADER_LENGTH;
import static io.jtick.core.kdb.KdbDescriptor.LENGTH_OFFSET;

/**
 * Writes kdb+ messages little-endian, as q does on x86 (some clients read every message as
 * little-endian whatever its first byte says): {@link #begin} a message, append objects, {@link #end}.
 * The few messages that are not updates (responses, errors, end of day) are built here; updates
 * are {@link KdbUpdateWriter}'s.
 */
public final class KdbWriter {
    private KdbWriter() {
    }

    /** A new message of {@code messageType} with room for {@code bodyHint} bytes; the header's length is set by {@link #end}. */
    public static ByteBuf begin(final ByteBufAllocator alloc, final int messageType, final int bodyHint) {
        final ByteBuf b = alloc.directBuffer(HEADER_LENGTH + Math.max(16, bodyHint));
        b.writeByte(1).writeByte(messageType).writeByte(0).writeByte(0).writeIntLE(0);
        return b;
    }

    /** Sets the message's length (everything written since {@link #begin}); returns the message. */
    public static ByteBuf end(final ByteBuf msg) {
        msg.setIntLE(msg.readerIndex() + LENGTH_OFFSET, msg.readableBytes());
        return msg;
    }

    /** A general list of {@code n} items follows. */
    public static void list(final ByteBuf b, final int n) {
        b.writeByte(KdbType.LIST).writeByte(0).writeIntLE(n);
    }

    /** A vector header: type, no attribute, count; its {@code n} values follow. */
    public static void vector(final ByteBuf b, final int type, final int n) {
        b.writeByte(type).writeByte(0).writeIntLE(n);
    }

    public static void symbol(final ByteBuf b, final String s) {
        b.writeByte(-KdbType.SYMBOL);
        b.writeCharSequence(s, StandardCharsets.ISO_8859_1);
        b.writeByte(0);
    }

    public static void symbol(final ByteBuf b, final byte[] s) {
        b.writeByte(-KdbType.SYMBOL).writeBytes(s).writeByte(0);
    }

    public static void longAtom(final ByteBuf b, final long v) {
        b.writeByte(-KdbType.LONG).writeLongLE(v);
    }

    public static void date(final ByteBuf b, final LocalDate d) {
        b.writeByte(-KdbType.DATE).writeIntLE((int) (d.toEpochDay() - KdbDescriptor.DAYS_1970_2000));
    }

    /** The generic null {@code ::}, what a function that returns nothing answers. */
    public static void genericNull(final ByteBuf b) {
        b.writeByte(KdbType.UNARY_PRIMITIVE).writeByte(0);
    }

    public static void chars(final ByteBuf b, final String s) {
        final byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        vector(b, KdbType.CHAR, bytes.length);
        b.writeBytes(bytes);
    }

    /**
     * The start of a table of {@code schema}'s columns, up to its column values: table, dictionary,
     * the symbol vector of column names, the general list the columns follow in.
     */
    public static void tableHeader(final ByteBuf b, final TableSchema schema) {
        b.writeByte(KdbType.TABLE).writeByte(0).writeByte(KdbType.DICT);
        vector(b, KdbType.SYMBOL, schema.columnCount());
        for (int c = 0; c < schema.columnCount(); c++) {
            b.writeCharSequence(schema.column(c).name(), StandardCharsets.US_ASCII);
            b.writeByte(0);
        }
        list(b, schema.columnCount());
    }

    /** Bytes {@link #tableHeader} writes for {@code schema}. */
    public static int tableHeaderLength(final TableSchema schema) {
        int n = 3 + 6 + 6;
        for (int c = 0; c < schema.columnCount(); c++) {
            n += schema.column(c).name().length() + 1;
        }
        return n;
    }

    /** An empty table with {@code schema}'s columns and their kdb+ types ({@code .u.sub}'s answer: {@code 0#trade}). */
    public static void emptyTable(final ByteBuf b, final TableSchema schema) {
        tableHeader(b, schema);
        for (int c = 0; c < schema.columnCount(); c++) {
            vector(b, KdbType.of(schema.type(c), c == TableSchema.TIME && schema.timeOfDay()), 0);
        }
    }

    /** A response that is the kdb+ error {@code text} (q shows it as {@code 'text}). */
    public static ByteBuf error(final ByteBufAllocator alloc, final String text) {
        final ByteBuf b = begin(alloc, KdbDescriptor.RESPONSE, text.length() + 2);
        b.writeByte(KdbType.ERROR);
        b.writeCharSequence(text.replace('\0', ' '), StandardCharsets.ISO_8859_1);
        b.writeByte(0);
        return end(b);
    }

    /** The async {@code (`.u.end; date)} a subscriber receives at end of day ({@code date}: the day that ended). */
    public static ByteBuf endOfDay(final ByteBufAllocator alloc, final LocalDate date) {
        final ByteBuf b = begin(alloc, KdbDescriptor.ASYNC, 32);
        list(b, 2);
        symbol(b, ".u.end");
        date(b, date);
        return end(b);
    }
}
