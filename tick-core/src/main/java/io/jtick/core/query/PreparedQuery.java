package io.jtick.core.query;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;

/**
 * A query parsed and bound to its tables, ready to run: its result types are known before any
 * row is read (a service sets the {@code X-Jtick-Types} header from them).
 */
public final class PreparedQuery {
    final Plan plan;
    final long startNanos;

    PreparedQuery(final Plan plan, final long startNanos) {
        this.plan = plan;
        this.startNanos = startNanos;
    }

    /** The same bound plan to run once more, its time ({@code tick.query}, {@code elapsedMicros}) counted from now. */
    public PreparedQuery again() {
        return new PreparedQuery(plan, System.nanoTime());
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
