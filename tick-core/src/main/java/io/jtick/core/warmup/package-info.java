/**
 * The query engine's start-up warm-up: its query shapes run over a generated day held in tables of
 * the service's own kind (RDB tables, HDB partitions), on a background thread, so that the JIT has
 * compiled them before a user's first query; and {@link io.jtick.core.warmup.HeapReturn}, the one
 * full collection after such a one-off job (the warm-up, a profiling run) that hands its heap back.
 */
package io.jtick.core.warmup;
