package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.schema.ColumnDef;

/** Chooses the encoding of each column a {@link PartitionWriter} writes. */
@FunctionalInterface
public interface EncodingPolicy {
    /** Every column plain (the hot tier): memory-mapped, read in place. */
    EncodingPolicy PLAIN = (table, column) -> ColumnEncoding.PLAIN;

    /** Encoding of {@code column} of {@code table}; a transform that does not apply to the type is dropped by the writer. */
    ColumnEncoding encoding(String table, ColumnDef column);

    /** One encoding for every column except the sym column, which stays plain (parted columns are not compressed). */
    static EncodingPolicy uniform(final ColumnEncoding encoding) {
        return (table, column) -> "sym".equals(column.name()) ? ColumnEncoding.PLAIN : encoding;
    }
}
