package io.jtick.core.table;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Interns ASCII symbols to dense int ids (0, 1, 2...), looked up straight from a buffer range
 * without allocating (kdb's sym list). Allocation happens only when a new symbol is added.
 * Single writer; {@link #name(int)} and {@link #size()} may be read by other threads (ids are
 * published through a volatile size after their name is stored).
 */
public final class SymbolTable {
    private int[] slots;          // open addressing: id + 1, 0 = empty
    private volatile byte[][] bytes;
    private volatile String[] names;
    private volatile int size;

    public SymbolTable() {
        this(1024);
    }

    public SymbolTable(final int expected) {
        int cap = 16;
        while (cap < expected * 2) {
            cap <<= 1;
        }
        slots = new int[cap];
        bytes = new byte[Math.max(16, expected)][];
        names = new String[Math.max(16, expected)];
    }

    public int size() {
        return size;
    }

    public String name(final int id) {
        return names[id];
    }

    public byte[] bytes(final int id) {
        return bytes[id];
    }

    /** @return the id of the symbol in {@code buf[offset, offset+length)}, or -1. */
    public int find(final ByteBuf buf, final int offset, final int length) {
        final int mask = slots.length - 1;
        int i = hash(buf, offset, length) & mask;
        final byte[][] b = bytes;
        while (true) {
            final int s = slots[i];
            if (s == 0) {
                return -1;
            }
            if (equals(b[s - 1], buf, offset, length)) {
                return s - 1;
            }
            i = (i + 1) & mask;
        }
    }

    /** Finds or adds the symbol in the buffer range. */
    public int intern(final ByteBuf buf, final int offset, final int length) {
        final int id = find(buf, offset, length);
        if (id >= 0) {
            return id;
        }
        final byte[] copy = new byte[length];
        buf.getBytes(offset, copy);
        return add(copy);
    }

    public int find(final String sym) {
        final byte[] b = sym.getBytes(StandardCharsets.US_ASCII);
        final int mask = slots.length - 1;
        int i = hash(b) & mask;
        while (true) {
            final int s = slots[i];
            if (s == 0) {
                return -1;
            }
            if (Arrays.equals(bytes[s - 1], b)) {
                return s - 1;
            }
            i = (i + 1) & mask;
        }
    }

    public int intern(final String sym) {
        final int id = find(sym);
        return id >= 0 ? id : add(sym.getBytes(StandardCharsets.US_ASCII));
    }

    private int add(final byte[] sym) {
        final int id = size;
        if (id == names.length) {
            bytes = Arrays.copyOf(bytes, id * 2);
            names = Arrays.copyOf(names, id * 2);
        }
        bytes[id] = sym;
        names[id] = new String(sym, StandardCharsets.US_ASCII);
        if ((id + 1) * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        insertSlot(sym, id);
        size = id + 1;
        return id;
    }

    private void insertSlot(final byte[] sym, final int id) {
        final int mask = slots.length - 1;
        int i = hash(sym) & mask;
        while (slots[i] != 0) {
            i = (i + 1) & mask;
        }
        slots[i] = id + 1;
    }

    private void rehash(final int capacity) {
        slots = new int[capacity];
        for (int id = 0; id < size; id++) {
            insertSlot(bytes[id], id);
        }
    }

    private static int hash(final ByteBuf buf, final int offset, final int length) {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + buf.getByte(offset + i);
        }
        return mix(h);
    }

    private static int hash(final byte[] b) {
        int h = 1;
        for (final byte x : b) {
            h = 31 * h + x;
        }
        return mix(h);
    }

    private static int mix(final int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    private static boolean equals(final byte[] a, final ByteBuf buf, final int offset, final int length) {
        if (a.length != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (a[i] != buf.getByte(offset + i)) {
                return false;
            }
        }
        return true;
    }
}
