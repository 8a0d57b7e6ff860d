package io.jtick.core.rdb;

import java.util.List;

/**
 * Rows of a query, ready for JSON. Values by column type: timestamp → ISO-8601 instant string
 * with nanoseconds ({@code "2026-11-21T09:30:00.000000123Z"}: epoch-ns longs exceed what
 * JavaScript numbers hold exactly); symbol and char → string; bool → boolean; float64/float32 →
 * number; int64/int32/int16/byte → integer.
 *
 * @param columns     column names, in the order of each row's values
 * @param rows        one list of values per selected row
 * @param rowsScanned rows the selection visited (sym index postings or time-column rows)
 */
public record QueryResult(List<String> columns, List<List<Object>> rows, long rowsScanned) {
}
