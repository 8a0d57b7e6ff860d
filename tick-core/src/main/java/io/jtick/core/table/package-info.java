/**
 * Tables as the engines read them: the one read contract ({@link io.jtick.core.table.TableSegment}
 * filling {@link io.jtick.core.table.ColumnChunk}s), where a query finds segments
 * ({@link io.jtick.core.table.QuerySource}), in-memory segments, and symbol interning.
 */
package io.jtick.core.table;
