package io.jtick.core.query;

import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.table.QuerySource;

/**
 * A source that can answer a grouped query by parts instead of handing out its rows: a gateway
 * whose RDB runs in another process, so that only group rows cross the network. The engine hands
 * it every query that splits ({@link SplitQuery}); any other query scans its segments.
 */
public interface SplitSource extends QuerySource {
    /** Whether this source runs split queries itself now (false: the engine scans its segments). */
    boolean splits();

    /** Runs the parts of a query, merges them into the query ({@link SplitQuery#merge}) and writes the answer. */
    ResultStats execute(SplitQuery query, ResultSink sink);
}
