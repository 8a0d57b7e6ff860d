package io.jtick.core.gateway;

import io.jtick.core.query.SplitQuery;
import io.jtick.core.query.SplitSource;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The gateway's source (TorQ's gateway, done as one engine over many segments): a query over a
 * date range that includes today reads the HDB's date partitions and today's rows from the RDB
 * as segments of one source, so the engine merges them exactly: group rows combine across days,
 * medians see every value, first/last and row order follow the dates. The RDB answers for its
 * trading day; an HDB partition of that same day (written at end of day, before the RDB clears)
 * is skipped so no row counts twice.
 *
 * <p>The RDB side is any {@link QuerySource}: the {@code RealtimeDatabase} in the same process,
 * or {@link RemoteRdbSource}, which fetches the rows the query needs over REST. With a remote RDB,
 * grouped queries whose aggregates decompose (count, sum, avg, min, max, first, last, wavg) are
 * split instead ({@link SplitSource}, {@link GatewaySplit}): each side aggregates its own rows and
 * the gateway merges the partial groups, so today's rows never cross the network.
 */
public final class Gateway implements SplitSource {
    private final QuerySource hdb;
    private final QuerySource rdb;

    public Gateway(final QuerySource hdb, final QuerySource rdb) {
        this.hdb = hdb;
        this.rdb = rdb;
    }

    /** The HDB's segments of {@code [fromDay, toDay]} but those of the RDB's days (closed: the RDB answers for them). */
    List<TableSegment> hdbSegments(final String table, final int fromDay, final int toDay, final ScanHint hint,
                                   final Set<Integer> rdbDays) {
        final List<TableSegment> out = new ArrayList<>();
        for (final TableSegment s : hdb.segments(table, fromDay, toDay, hint)) {
            if (rdbDays.contains(s.epochDay())) {
                s.close();
            } else {
                out.add(s);
            }
        }
        return out;
    }

    QuerySource hdb() {
        return hdb;
    }

    /** Splits grouped queries when the RDB is another process (in-process, its rows cost nothing to read). */
    @Override
    public boolean splits() {
        return rdb instanceof RemoteRdbSource;
    }

    @Override
    public ResultStats execute(final SplitQuery query, final ResultSink sink) {
        return GatewaySplit.run(query, this, (RemoteRdbSource) rdb, sink);
    }

    /** The HDB's schema (the table's newest partition), else the RDB's. */
    @Override
    public TableSchema schema(final String table) {
        final TableSchema s = hdb.schema(table);
        return s != null ? s : rdb.schema(table);
    }

    @Override
    public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
        final List<TableSegment> today = rdb.segments(table, fromDay, toDay, hint);
        final Set<Integer> rdbDays = new HashSet<>();
        for (final TableSegment s : today) {
            rdbDays.add(s.epochDay());
        }
        final List<TableSegment> out = hdbSegments(table, fromDay, toDay, hint, rdbDays);
        out.addAll(today);
        out.sort(Comparator.comparingInt(TableSegment::epochDay));
        return out;
    }
}
