package io.jtick.core.rdb;

import io.jtick.core.table.SymbolTable;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The RDB-wide symbol list (kdb's {@code sym}): every table's sym column holds ids from here, so an
 * id means the same symbol in every table and across end of day. The writer interns straight from
 * a frame's dictionary without allocating (only a new symbol allocates); readers on other threads
 * look names up through a concurrent map filled when a symbol is first seen.
 */
public final class SymbolCatalog {
    private final SymbolTable table;
    private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
    private int known;

    public SymbolCatalog() {
        this(4096);
    }

    public SymbolCatalog(final int expected) {
        this.table = new SymbolTable(expected);
    }

    /** Writer thread only: the id of the symbol in {@code buf[offset, offset+length)}, added if new. */
    public int intern(final ByteBuf buf, final int offset, final int length) {
        final int id = table.intern(buf, offset, length);
        if (id >= known) {
            publishNew();
        }
        return id;
    }

    /** Writer thread only (tests, tools): interns a symbol given as a string. */
    public int intern(final String sym) {
        final int id = table.intern(sym);
        if (id >= known) {
            publishNew();
        }
        return id;
    }

    private void publishNew() {
        final int size = table.size();
        for (int id = known; id < size; id++) {
            ids.put(table.name(id), id);
        }
        known = size;
    }

    /** Any thread: the id of a symbol, or -1 when no table has seen it. */
    public int find(final String sym) {
        final Integer id = ids.get(sym);
        return id == null ? -1 : id;
    }

    /** Any thread, for an id read from a published row. */
    public String name(final int id) {
        return table.name(id);
    }

    /** Any thread: number of symbols. */
    public int size() {
        return table.size();
    }
}
