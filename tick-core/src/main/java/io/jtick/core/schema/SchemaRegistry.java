package io.jtick.core.schema;

import io.netty.buffer.ByteBuf;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The set of tables a tickerplant accepts. Immutable; lookups by name bytes do not allocate.
 *
 * <p>YAML form (see docs/configuration.md):
 * <pre>
 * extraFloats: 0          # adds ex0..exN-1 float64 columns to the built-in trade and quote
 * tables:
 *   trade: [price:float64, size:int64, cond:char]   # time and sym are implied
 *   fx: [bid:float64, ask:float64]
 *   quote: [time:timespan, sym:symbol, bid:float, ask:float, bsize:int, asize:int]   # kdb-tick's sym.q
 * </pre>
 * {@code time:timespan} declares the time column a time of day, as kdb-tick's {@code sym.q} does: it
 * is stored as a timestamp and shown to kdb+ clients as a timespan ({@link TableSchema#timeOfDay()}).
 */
public final class SchemaRegistry {
    private final TableSchema[] tables;

    public SchemaRegistry(final Collection<TableSchema> tables) {
        this.tables = tables.toArray(new TableSchema[0]);
        for (int i = 0; i < this.tables.length; i++) {
            for (int j = 0; j < i; j++) {
                if (this.tables[i].name().equals(this.tables[j].name())) {
                    throw new IllegalArgumentException("duplicate table [table=" + this.tables[i].name() + "]");
                }
            }
        }
    }

    /** The built-in kdb+tick schemas, trade and quote, each with {@code extraFloats} extra float columns. */
    public static SchemaRegistry builtIn(final int extraFloats) {
        return new SchemaRegistry(List.of(TableSchema.trade(extraFloats), TableSchema.quote(extraFloats)));
    }

    /** Loads YAML (format in the class comment); the built-in tables are present unless redefined. */
    public static SchemaRegistry fromYaml(final Reader reader) {
        final Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(reader);
        if (doc == null) {
            return builtIn(0);
        }
        if (!(doc instanceof Map<?, ?> root)) {
            throw new IllegalArgumentException("schema YAML must be a map with 'tables' and/or 'extraFloats'");
        }
        final int extra = root.get("extraFloats") instanceof Number n ? n.intValue() : 0;
        final Map<String, TableSchema> byName = new LinkedHashMap<>();
        byName.put("trade", TableSchema.trade(extra));
        byName.put("quote", TableSchema.quote(extra));
        final Object tables = root.get("tables");
        if (tables instanceof Map<?, ?> t) {
            for (final Map.Entry<?, ?> e : t.entrySet()) {
                final String name = String.valueOf(e.getKey());
                if (!(e.getValue() instanceof List<?> cols)) {
                    throw new IllegalArgumentException("table columns must be a list [table=" + name + "]");
                }
                final List<ColumnDef> defs = new ArrayList<>();
                boolean timeOfDay = false;
                for (final Object c : cols) {
                    final String s = String.valueOf(c);
                    final int colon = s.indexOf(':');
                    if (colon <= 0) {
                        throw new IllegalArgumentException("column must be name:type [table=" + name + ", column=" + s + "]");
                    }
                    final String column = s.substring(0, colon).trim();
                    final String type = s.substring(colon + 1).trim();
                    if (defs.isEmpty() && column.equals("time") && type.equalsIgnoreCase("timespan")) {
                        timeOfDay = true;
                        defs.add(new ColumnDef(column, ColumnType.TIMESTAMP));
                    } else {
                        defs.add(new ColumnDef(column, ColumnType.parse(type)));
                    }
                }
                final boolean hasTimeSym = defs.size() >= 2 && defs.get(0).name().equals("time") && defs.get(1).name().equals("sym");
                final List<ColumnDef> all = new ArrayList<>(defs);
                if (!hasTimeSym) {
                    all.addAll(0, List.of(new ColumnDef("time", ColumnType.TIMESTAMP), new ColumnDef("sym", ColumnType.SYMBOL)));
                }
                byName.put(name, new TableSchema(name, all, timeOfDay));
            }
        } else if (tables != null) {
            throw new IllegalArgumentException("'tables' must be a map of table name to column list");
        }
        return new SchemaRegistry(byName.values());
    }

    /** Loads a YAML file, or the built-ins when {@code file} is null. */
    public static SchemaRegistry load(final Path file, final int extraFloats) throws IOException {
        if (file == null) {
            return builtIn(extraFloats);
        }
        try (Reader r = Files.newBufferedReader(file)) {
            return fromYaml(r);
        }
    }

    public TableSchema get(final String name) {
        for (final TableSchema t : tables) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** Looks a table up by its ASCII name bytes in a buffer, without allocating. */
    public TableSchema get(final ByteBuf buffer, final int offset, final int length) {
        for (final TableSchema t : tables) {
            final byte[] n = t.nameBytes();
            if (n.length == length && matches(buffer, offset, n)) {
                return t;
            }
        }
        return null;
    }

    /** Index of a table in {@link #tables()} by its name bytes in a buffer, or -1; does not allocate. */
    public int indexOf(final ByteBuf buffer, final int offset, final int length) {
        for (int i = 0; i < tables.length; i++) {
            final byte[] n = tables[i].nameBytes();
            if (n.length == length && matches(buffer, offset, n)) {
                return i;
            }
        }
        return -1;
    }

    /** Index of a table by name, or -1. */
    public int indexOf(final String name) {
        for (int i = 0; i < tables.length; i++) {
            if (tables[i].name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    public TableSchema get(final int index) {
        return tables[index];
    }

    private static boolean matches(final ByteBuf buffer, final int offset, final byte[] name) {
        for (int i = 0; i < name.length; i++) {
            if (buffer.getByte(offset + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    public List<TableSchema> tables() {
        return List.of(tables);
    }

    public int size() {
        return tables.length;
    }
}
