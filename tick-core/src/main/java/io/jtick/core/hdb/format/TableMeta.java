package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table partition's {@code .meta} file (YAML): format version, table, date, row count, sort
 * order, index kind, block size, and per column its type and encoding with raw and stored bytes.
 * Written last; a table directory without it is not a table.
 *
 * @param table     the table's schema
 * @param date      the partition's date
 * @param rows      row count
 * @param blockBytes raw bytes per block the columns were written with
 * @param columns   per column: encoding and sizes, in schema order
 */
public record TableMeta(TableSchema table, LocalDate date, int rows, int blockBytes, List<ColumnMeta> columns) {
    /**
     * Storage format version the writer writes (docs/storage-format.md): 3, encoded column files cut
     * into sub-blocks (plain column files are the same as in version 2).
     */
    public static final int FORMAT = 3;
    /** The oldest storage format readers accept (version 1: column files without block summaries). */
    public static final int MIN_FORMAT = 1;
    public static final String FILE = ".meta";

    /** One column's stored form. */
    public record ColumnMeta(String name, ColumnType type, String encoding, long rawBytes, long storedBytes) {
    }

    public void write(final Path file) throws IOException {
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("format", FORMAT);
        doc.put("table", table.name());
        doc.put("date", date.toString());
        doc.put("rows", rows);
        doc.put("sortedBy", List.of("sym", "time"));
        doc.put("index", Map.of("column", "sym", "kind", "parted", "file", SymRanges.FILE));
        doc.put("blockBytes", blockBytes);
        final List<Map<String, Object>> cols = new ArrayList<>();
        for (final ColumnMeta c : columns) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c.name());
            m.put("type", c.type().typeName());
            m.put("encoding", c.encoding());
            m.put("rawBytes", c.rawBytes());
            m.put("storedBytes", c.storedBytes());
            cols.add(m);
        }
        doc.put("columns", cols);
        final DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        Files.writeString(file, new Yaml(options).dump(doc), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
    }

    static TableMeta read(final Path file) throws IOException {
        final Object parsed;
        try {
            parsed = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file, StandardCharsets.UTF_8));
        } catch (final RuntimeException e) {
            throw new CorruptPartitionException(file, -1, "table metadata is not valid YAML: " + e.getMessage(), e);
        }
        try {
            final Map<?, ?> doc = (Map<?, ?>) parsed;
            final int format = ((Number) doc.get("format")).intValue();
            if (format < MIN_FORMAT || format > FORMAT) {
                throw new CorruptPartitionException(file, -1, "unsupported storage format [format=" + format + ", supported="
                    + MIN_FORMAT + ".." + FORMAT + "]");
            }
            final String name = (String) doc.get("table");
            final List<ColumnDef> defs = new ArrayList<>();
            final List<ColumnMeta> cols = new ArrayList<>();
            for (final Object o : (List<?>) doc.get("columns")) {
                final Map<?, ?> m = (Map<?, ?>) o;
                final String typeName = (String) m.get("type");
                ColumnType type = null;
                for (final ColumnType t : ColumnType.values()) {
                    if (t.typeName().equals(typeName)) {
                        type = t;
                    }
                }
                if (type == null) {
                    throw new CorruptPartitionException(file, -1, "unknown column type [type=" + typeName + "]");
                }
                final String col = (String) m.get("name");
                defs.add(new ColumnDef(col, type));
                cols.add(new ColumnMeta(col, type, (String) m.get("encoding"), ((Number) m.get("rawBytes")).longValue(),
                    ((Number) m.get("storedBytes")).longValue()));
            }
            return new TableMeta(new TableSchema(name, defs), LocalDate.parse((String) doc.get("date")),
                ((Number) doc.get("rows")).intValue(), ((Number) doc.get("blockBytes")).intValue(), List.copyOf(cols));
        } catch (final CorruptPartitionException e) {
            throw e;
        } catch (final RuntimeException e) {
            throw new CorruptPartitionException(file, -1, "table metadata is incomplete or malformed: " + e, e);
        }
    }
}
