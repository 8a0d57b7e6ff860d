package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The row stage of an {@link Execution} (no group keys, no aggregates): the bound segments'
 * candidate rows scanned batch by batch, the kept ones collected per segment (ranges stay ranges)
 * up to the limit or the row cap, then read again to evaluate the output expressions and stream
 * them to the sink, through a sorted result table when the query has an orderBy.
 */
final class RowScan {
    private final Execution execution;
    private final Plan plan;

    RowScan(final Execution execution) {
        this.execution = execution;
        this.plan = execution.plan;
    }

    /** Rows kept in one segment, in order, and their as-of matches. */
    private static final class Kept {
        /** Marks entries that are slices of {@link #store} while it still grows. */
        static final int[] STORE = new int[0];
        final BoundSegment bound;
        final RowSet rows = new RowSet();
        int[] store = new int[64];
        int stored;
        int[] right;
        int rightCount;

        Kept(final BoundSegment bound) {
            this.bound = bound;
        }

        void add(final int row) {
            if (stored == store.length) {
                store = Arrays.copyOf(store, stored << 1);
            }
            store[stored++] = row;
        }

        void addRight(final int row) {
            if (right == null) {
                right = new int[64];
            } else if (rightCount == right.length) {
                right = Arrays.copyOf(right, rightCount << 1);
            }
            right[rightCount++] = row;
        }
    }

    /**
     * Streams the rows in one pass when every candidate is kept (no residual condition, no orderBy):
     * the row count is known before anything is read, so each batch is matched and written as it is
     * read and the columns the as-of match loaded serve the output. Otherwise collects the kept rows
     * (up to the limit), then evaluates the outputs and writes them, sorted if the query asks.
     */
    ResultStats run(final List<BoundSegment> bounds, final int capacity, final ResultSink sink) {
        final Batch b = new Batch(plan, capacity);
        final boolean sorted = plan.orderColumns().length > 0;
        final long maxRows = execution.limits.maxRows();
        final long cap = sorted || plan.limit() == 0 ? maxRows + 1 : Math.min(plan.limit(), maxRows + 1);
        if (!sorted && allKept(bounds)) {
            long candidates = 0;
            for (final BoundSegment bound : bounds) {
                candidates += bound.rows.rowCount();
            }
            final long total = Math.min(candidates, cap);
            checkRows(total, maxRows);
            execution.checkBytes(total);
            return execution.end(streamRows(bounds, b, capacity, total, sink), sink);
        }
        final List<Kept> kept = new ArrayList<>();
        final long[] total = {0};
        for (final BoundSegment bound : bounds) {
            if (total[0] >= cap) {
                break;
            }
            if (bound.rows.size == 0) {
                continue;
            }
            final TableSegment seg = bound.seg;
            final Kept k = new Kept(bound);
            kept.add(k);
            b.bind(seg, bound.columns, bound.right);
            // entries: whole range batches as ranges; kept rows of other batches go to k.store, as
            // slices marked STORE and pointed at the final store array afterwards
            execution.addScanned(bound.scan(b, batch -> {
                final int take = (int) Math.min(batch.count, cap - total[0]);
                if (batch.isRange && batch.sel == null) {
                    k.rows.range(batch.from, batch.from + take);
                } else {
                    final int start = k.stored;
                    for (int i = 0; i < take; i++) {
                        k.add(batch.row(batch.sel == null ? i : batch.sel[i]));
                    }
                    k.rows.add(Kept.STORE, start, k.stored);
                }
                if (batch.match != null) {
                    for (int i = 0; i < take; i++) {
                        k.addRight(batch.match[batch.sel == null ? i : batch.sel[i]]);
                    }
                }
                total[0] += take;
                return total[0] < cap;
            }));
            for (int e = 0; e < k.rows.size; e++) {
                if (k.rows.lists[e] == Kept.STORE) {
                    k.rows.lists[e] = k.store;
                }
            }
        }
        checkRows(total[0], maxRows);
        if (sorted) {
            final ResultTable table = new ResultTable();
            emitRows(kept, b, capacity, table);
            return execution.finish(table, plan.orderColumns(), plan.orderDesc(), sink);
        }
        execution.checkBytes(total[0]);
        return execution.end(emitRows(kept, b, capacity, sink), sink);
    }

    private static boolean allKept(final List<BoundSegment> bounds) {
        for (final BoundSegment bound : bounds) {
            if (bound.preds.length > 0) {
                return false;
            }
        }
        return true;
    }

    private static void checkRows(final long rows, final long maxRows) {
        if (rows > maxRows) {
            throw QueryException.tooLarge("result over the row limit [rows>" + maxRows + ", maxRows=" + maxRows
                + "]: narrow the query, add a limit or raise tick.query.max-rows");
        }
    }

    /** One pass: the first {@code total} candidate rows, each batch matched (as-of) and written as the scan reads it. */
    private long streamRows(final List<BoundSegment> bounds, final Batch b, final int capacity, final long total, final ResultSink sink) {
        final Output out = new Output(plan, capacity, sink);
        final long[] rows = {0};
        for (final BoundSegment bound : bounds) {
            if (rows[0] >= total) {
                break;
            }
            if (bound.rows.size == 0) {
                continue;
            }
            final TableSegment seg = bound.seg;
            b.bind(seg, bound.columns, bound.right);
            execution.addScanned(bound.scan(b, batch -> {
                final int take = (int) Math.min(batch.count, total - rows[0]);
                out.write(batch, seg, take);
                rows[0] += take;
                return rows[0] < total;
            }));
        }
        return rows[0];
    }

    private long emitRows(final List<Kept> kept, final Batch b, final int capacity, final ResultSink sink) {
        final Output out = new Output(plan, capacity, sink);
        long rows = 0;
        for (final Kept k : kept) {
            final TableSegment seg = k.bound.seg;
            b.bind(seg, k.bound.columns, k.bound.right);
            final int chunk = Math.min(seg.chunkRows(), capacity);
            int matchAt = 0;
            final RowSet rs = k.rows;
            for (int e = 0; e < rs.size; e++) {
                final int[] list = rs.lists[e];
                for (int p = rs.from[e]; p < rs.to[e]; p += chunk) {
                    final int n = Math.min(chunk, rs.to[e] - p);
                    if (list == null) {
                        b.setRange(p, n, -1);
                    } else {
                        b.setList(list, p, n, -1);
                    }
                    if (b.match != null) {
                        System.arraycopy(k.right, matchAt, b.match, 0, n);
                        matchAt += n;
                    }
                    out.write(b, seg, n);
                    rows += n;
                }
            }
        }
        return rows;
    }

    /** The output expressions and the sink: evaluates them over a batch and writes its first rows. */
    private static final class Output {
        private final ResultSink sink;
        private final Ev[] evs;
        private final int[] kind;

        Output(final Plan plan, final int capacity, final ResultSink sink) {
            this.sink = sink;
            final int outs = plan.rowOutputs().size();
            evs = new Ev[outs];
            kind = new int[outs];
            for (int j = 0; j < outs; j++) {
                evs[j] = Ev.of(plan.rowOutputs().get(j), capacity);
                final ValueType t = evs[j].type;
                kind[j] = t == ValueType.SYMBOL ? 0 : t.isDouble() ? 1 : evs[j].nullable ? 3 : 2;
            }
            sink.begin(plan.outNames(), plan.outTypes());
        }

        /** Positions {@code 0..n) of a batch whose every position is kept. */
        void write(final Batch b, final TableSegment seg, final int n) {
            final Ev[] es = evs;
            final int outs = es.length;
            for (final Ev ev : es) {
                ev.eval(b);
            }
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < outs; j++) {
                    final Ev ev = es[j];
                    switch (kind[j]) {
                        case 0:
                            sink.symbol(seg.symName(ev.s[ev.off + i]));
                            break;
                        case 1:
                            sink.value(ev.d[ev.off + i]);
                            break;
                        case 2:
                            sink.value(ev.l[ev.off + i]);
                            break;
                        default: {
                            final long v = ev.l[ev.off + i];
                            if (v == Plan.NULL_LONG) {
                                sink.nullValue();
                            } else {
                                sink.value(v);
                            }
                            break;
                        }
                    }
                }
                sink.endRow();
            }
        }
    }
}
