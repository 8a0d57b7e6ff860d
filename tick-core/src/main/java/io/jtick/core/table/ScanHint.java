package io.jtick.core.table;

import java.util.List;

/**
 * What a query will read from a table, for sources that fetch rows from elsewhere (the gateway
 * asks the RDB for just these columns and rows). A local source may ignore it: the engine applies
 * every condition itself, so a source may return more rows than the hint asks for, never fewer.
 *
 * @param columns columns the query reads, in schema order ({@code time} and {@code sym} always)
 * @param where   conditions in the query-document form ({@code {"sym":{"in":["A"]},...}}), or null
 */
public record ScanHint(List<String> columns, Object where) {
    public ScanHint {
        columns = List.copyOf(columns);
    }
}
