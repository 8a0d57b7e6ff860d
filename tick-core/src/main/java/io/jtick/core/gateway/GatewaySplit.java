package io.jtick.core.gateway;

import io.jtick.core.query.SplitQuery;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;

import java.util.List;
import java.util.Set;

/**
 * The gateway's side of a split query (map on each process, reduce in the gateway, as TorQ's
 * gateway does): the RDB runs the partial query over REST, the HDB here, each over its own days,
 * and the engine's {@link SplitQuery} merges their groups. Only group rows cross the network, not
 * today's matching rows. Queries that do not split (median, dev, as-of joins, row queries) read
 * rows instead ({@link RemoteRdbSource#segments}).
 */
final class GatewaySplit {
    private GatewaySplit() {
    }

    /**
     * Runs the split query: the RDB's part over REST, the HDB's part here (its partition of the
     * RDB's day skipped), then the merge, the HDB's older days first.
     */
    static ResultStats run(final SplitQuery split, final Gateway gateway, final RemoteRdbSource rdb, final ResultSink sink) {
        final RemoteRdbSource.Part today = rdb.query(split.partialDocument(), split.fromDay(), split.toDay());
        final boolean rdbInRange = today.rows() != null && split.includesDay(today.epochDay());

        final Set<Integer> rdbDays = rdbInRange ? Set.of(today.epochDay()) : Set.of();
        final QuerySource past = new QuerySource() {
            @Override
            public TableSchema schema(final String table) {
                return gateway.hdb().schema(table);
            }

            @Override
            public List<TableSegment> segments(final String table, final int from, final int to, final ScanHint hint) {
                return gateway.hdbSegments(table, from, to, hint, rdbDays);
            }
        };
        final ResultTable old = split.runPartial(past);
        if (old != null) {
            split.merge(old, old.stats().rowsScanned(), old.stats().segments());
        }
        if (rdbInRange) {
            split.merge(today.rows(), today.rowsScanned(), 1);
        }
        return split.writeTo(sink);
    }
}
