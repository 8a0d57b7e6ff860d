package io.jtick.core.query;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import java.util.List;

/**
 * A query parsed and bound to its tables, ready to run: its result columns and their types are
 * known before any row is read (a service sets headers from them).
 */
public final class PreparedQuery {
    final Plan plan;
    final long startNanos;

    PreparedQuery(final Plan plan, final long startNanos) {
        this.plan = plan;
        this.startNanos = startNanos;
    }

    public String table() {
        return plan.query().table();
    }

    public List<String> columns() {
        return plan.outNames();
    }

    public List<ValueType> types() {
        return plan.outTypes();
    }

    /** {@code X-Jtick-Types}: the type names, comma separated. */
    public String typesHeader() {
        final StringBuilder sb = new StringBuilder();
        for (final ValueType t : plan.outTypes()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(t.typeName());
        }
        return sb.toString();
    }
}
