/**
 * The query engine's start-up warm-up: its query shapes run over a generated day held in tables of
 * the service's own kind (RDB tables, HDB partitions), on a background thread, so that the JIT has
 * compiled them before a user's first query.
 */
package io.jtick.core.warmup;
