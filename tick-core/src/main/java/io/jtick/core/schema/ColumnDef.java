package io.jtick.core.schema;

import java.util.Objects;

/** One column of a table schema: a name and a type. */
public record ColumnDef(String name, ColumnType type) {
    public ColumnDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (!name.matches("[A-Za-z][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("bad column name [column=" + name + "]");
        }
    }
}
