/**
 * The query benchmark: the same trades and quotes (a synthetic day or the real TAQ sample) loaded
 * into jtick, embedded DuckDB and embedded QuestDB, the same six questions asked of each, answers
 * checked equal before anything is timed.
 */
package io.jtick.bench.query;
