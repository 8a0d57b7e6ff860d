package io.jtick.core.kdb;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

import java.nio.charset.StandardCharsets;

import static io.jtick.core.kdb.KdbDescriptor.BYTE_ORDER_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.HEADER_LENGTH;
import static io.jtick.core.kdb.KdbDescriptor.MESSAGE_TYPE_OFFSET;

/**
 * Flyweight reader of one whole, uncompressed kdb+ message: positions are absolute buffer indexes,
 * integers are read in the byte order the message declares, and nothing is read past the message's
 * end ({@link Malformed} instead). Reading allocates nothing except {@link #text} (for errors and
 * rare calls). Reuse one per connection: {@link #wrap} each message.
 */
public final class KdbReader {
    private static final int MAX_DEPTH = 32;

    /** A message whose bytes do not make the object they claim to (stackless: bad input is not exceptional here). */
    public static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Malformed(final String message) {
            super(message, null, false, false);
        }
    }

    private ByteBuf buf;
    private int offset;
    private int end;
    private boolean le;

    /** Reads the message of {@code length} bytes at {@code offset} (header included). */
    public KdbReader wrap(final ByteBuf buffer, final int offset, final int length) {
        this.buf = buffer;
        this.offset = offset;
        this.end = offset + length;
        this.le = buffer.getByte(offset + BYTE_ORDER_OFFSET) == 1;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean littleEndian() {
        return le;
    }

    /** 0 async, 1 sync, 2 response. */
    public int messageType() {
        return buf.getByte(offset + MESSAGE_TYPE_OFFSET);
    }

    /** Position of the message's object. */
    public int body() {
        return offset + HEADER_LENGTH;
    }

    /** The type byte of the object at {@code pos}. */
    public int type(final int pos) {
        need(pos, 1);
        return buf.getByte(pos);
    }

    /** Item count of the vector or general list at {@code pos}. */
    public int count(final int pos) {
        need(pos, 6);
        final int n = le ? buf.getIntLE(pos + 2) : buf.getInt(pos + 2);
        if (n < 0) {
            throw new Malformed("negative count [at=" + (pos - offset) + ", count=" + n + "]");
        }
        return n;
    }

    /** Position of the first value (or item) of the vector or list at {@code pos}. */
    public static int values(final int pos) {
        return pos + 6;
    }

    /** Checks that {@code bytes} bytes from {@code pos} lie inside the message. */
    public void need(final int pos, final long bytes) {
        if (pos < offset || pos + bytes > end) {
            throw new Malformed("message ends early [at=" + (pos - offset) + ", need=" + bytes + ", length=" + (end - offset) + "]");
        }
    }

    public short i16(final int pos) {
        return le ? buf.getShortLE(pos) : buf.getShort(pos);
    }

    public int i32(final int pos) {
        return le ? buf.getIntLE(pos) : buf.getInt(pos);
    }

    public long i64(final int pos) {
        return le ? buf.getLongLE(pos) : buf.getLong(pos);
    }

    public byte i8(final int pos) {
        return buf.getByte(pos);
    }

    /** Index of the NUL that ends the symbol starting at {@code pos}. */
    public int symbolEnd(final int pos) {
        // forEachByte with a shared processor: ByteBuf.indexOf allocates a processor per call
        final int nul = pos < end ? buf.forEachByte(pos, end - pos, ByteProcessor.FIND_NUL) : -1;
        if (nul < 0) {
            throw new Malformed("symbol without its NUL [at=" + (pos - offset) + "]");
        }
        return nul;
    }

    /** Position after the object at {@code pos}; checks that the whole object lies inside the message. */
    public int skip(final int pos) {
        return skip(pos, 0);
    }

    private int skip(final int pos, final int depth) {
        if (depth > MAX_DEPTH) {
            throw new Malformed("objects nested deeper than " + MAX_DEPTH);
        }
        final int t = type(pos);
        if (t < 0) {
            if (t == -KdbType.SYMBOL || t == KdbType.ERROR) {
                return symbolEnd(pos + 1) + 1;
            }
            final int w = KdbType.width(t);
            if (w == 0) {
                throw new Malformed("unknown atom type [type=" + t + ", at=" + (pos - offset) + "]");
            }
            need(pos, 1 + w);
            return pos + 1 + w;
        }
        if (t == KdbType.DICT) {
            return skip(skip(pos + 1, depth + 1), depth + 1);
        }
        if (t == KdbType.TABLE) {
            need(pos, 2);
            return skip(pos + 2, depth + 1);
        }
        if (t >= KdbType.UNARY_PRIMITIVE && t <= 103) {
            need(pos, 2);
            return pos + 2;
        }
        if (t > KdbType.TIME) {
            throw new Malformed("type not supported [type=" + KdbType.name(t) + ", at=" + (pos - offset) + "]");
        }
        final int n = count(pos);
        int p = values(pos);
        if (t == KdbType.LIST) {
            for (int k = 0; k < n; k++) {
                p = skip(p, depth + 1);
            }
            return p;
        }
        if (t == KdbType.SYMBOL) {
            for (int k = 0; k < n; k++) {
                p = symbolEnd(p) + 1;
            }
            return p;
        }
        final int w = KdbType.width(t);
        if (w == 0) {
            throw new Malformed("unknown vector type [type=" + t + ", at=" + (pos - offset) + "]");
        }
        need(p, (long) n * w);
        return p + n * w;
    }

    /** True when the object at {@code pos} is the symbol or the char vector {@code text} (ASCII). */
    public boolean isText(final int pos, final byte[] text) {
        final int t = type(pos);
        final int from;
        final int length;
        if (t == -KdbType.SYMBOL) {
            from = pos + 1;
            length = symbolEnd(from) - from;
        } else if (t == KdbType.CHAR) {
            from = values(pos);
            length = count(pos);
            need(from, length);
        } else {
            return false;
        }
        if (length != text.length) {
            return false;
        }
        for (int k = 0; k < length; k++) {
            if (buf.getByte(from + k) != text[k]) {
                return false;
            }
        }
        return true;
    }

    /** True when the object at {@code pos} is a symbol atom or a char vector. */
    public boolean isTextual(final int pos) {
        final int t = type(pos);
        return t == -KdbType.SYMBOL || t == KdbType.CHAR || t == -KdbType.CHAR;
    }

    /** Start of the text of the symbol atom, char vector or char atom at {@code pos}. */
    public int textStart(final int pos) {
        final int t = type(pos);
        return t == KdbType.CHAR ? values(pos) : pos + 1;
    }

    /** Length of the text of the symbol atom, char vector or char atom at {@code pos}. */
    public int textLength(final int pos) {
        final int t = type(pos);
        if (t == -KdbType.SYMBOL) {
            return symbolEnd(pos + 1) - pos - 1;
        }
        if (t == KdbType.CHAR) {
            final int n = count(pos);
            need(values(pos), n);
            return n;
        }
        if (t == -KdbType.CHAR) {
            need(pos, 2);
            return 1;
        }
        throw new Malformed("not text [type=" + KdbType.name(t) + "]");
    }

    /** The symbol or char vector at {@code pos} as a string, else its type's name in parentheses. Allocates. */
    public String text(final int pos) {
        if (!isTextual(pos)) {
            return "(" + KdbType.name(type(pos)) + ")";
        }
        return buf.toString(textStart(pos), textLength(pos), StandardCharsets.ISO_8859_1);
    }
}
