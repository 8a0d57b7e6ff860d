/**
 * The query engine shared by the RDB, the HDB and the gateway: a JSON query model (select,
 * aggregates, by with time bars, as-of join, orderBy, limit) run column at a time over
 * {@link io.jtick.core.table.TableSegment}s, with streaming JSON and CSV writers.
 */
package io.jtick.core.query;

