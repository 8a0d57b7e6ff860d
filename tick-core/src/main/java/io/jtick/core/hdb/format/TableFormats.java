package io.jtick.core.hdb.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * The table formats on the class path: jtick's own (always) and those found by
 * {@link ServiceLoader} ({@link TableFormat}). A table directory holding a {@code .format} file is
 * opened by the format it names; any other is jtick's column files.
 */
public final class TableFormats {
    /** jtick's own column files, as a tier rule names them. */
    public static final String JTICK = "jtick";

    private static final List<TableFormat> FORMATS = load();

    private TableFormats() {
    }

    private static List<TableFormat> load() {
        final List<TableFormat> out = new ArrayList<>();
        for (final TableFormat f : ServiceLoader.load(TableFormat.class, TableFormats.class.getClassLoader())) {
            out.add(f);
        }
        return List.copyOf(out);
    }

    /** Opens a table directory in whichever format it holds. */
    public static StoredTable open(final Path tableDir) throws IOException {
        final Path marker = tableDir.resolve(TableFormat.FORMAT_FILE);
        if (!Files.isRegularFile(marker)) {
            return PartitionTable.open(tableDir);
        }
        final String name = Files.readString(marker, StandardCharsets.US_ASCII).trim();
        final TableFormat f = byName(name);
        if (f == null) {
            throw new CorruptPartitionException(marker, -1, "table format not on the class path [format=" + name + ", known=" + names()
                + "]");
        }
        return f.open(tableDir);
    }

    /** The format named {@code name} ({@code parquet}), or null when none on the class path is. */
    public static TableFormat byName(final String name) {
        for (final TableFormat f : FORMATS) {
            if (f.name().equals(name.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        return null;
    }

    /** Names of the formats beside jtick's, for error messages. */
    public static List<String> names() {
        final List<String> out = new ArrayList<>();
        for (final TableFormat f : FORMATS) {
            out.add(f.name());
        }
        return out;
    }
}
