package io.jtick.boot;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.warmup.QueryWarmUp;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.util.List;

/**
 * {@code tick.query.*}: what one query may return (RDB, HDB and gateway alike). Over either limit
 * a query answers 413 with a message.
 *
 * @param maxRows  result rows allowed (group rows for aggregates)
 * @param maxBytes encoded JSON or CSV bytes allowed
 * @param warmUp   rdb-service and hdb-service run the engine's query shapes as they start, on a background thread, over a
 *                 generated day in tables of their own kind ({@code QueryWarmUp}), so a user's first queries run compiled code
 * @param warmUpTime the most the warm-up may take (it stops after its rounds or this, whichever is first)
 * @param warmUpEncodings hdb-service: the encodings of the partitions its warm-up writes and reads (those its days are in)
 */
@ConfigurationProperties("tick.query")
public record QueryProperties(
    @DefaultValue("1000000") long maxRows,
    @DefaultValue("256MB") DataSize maxBytes,
    @DefaultValue("true") boolean warmUp,
    @DefaultValue("20s") Duration warmUpTime,
    @DefaultValue({"none", "auto/lz4"}) List<String> warmUpEncodings) {

    /** A bad value stops start-up naming its key. */
    public QueryProperties {
        PropertyChecks.range("tick.query.max-rows", maxRows, 1, 2_000_000_000L);
        PropertyChecks.present("tick.query.max-bytes", maxBytes);
        PropertyChecks.present("tick.query.warm-up-time", warmUpTime);
        PropertyChecks.present("tick.query.warm-up-encodings", warmUpEncodings);
    }

    public QueryLimits limits() {
        return new QueryLimits(maxRows, maxBytes.toBytes());
    }

    /**
     * Starts the service's query warm-up over tables of its kind, or none when {@code warm-up} is
     * off; the time it took is the gauge {@code tick.query.warmup.ms} (0 until it is done).
     */
    public QueryWarmUp startWarmUp(final QueryWarmUp.Kind kind, final TickMetrics metrics) {
        final QueryWarmUp w = warmUp ? QueryWarmUp.start(kind, warmUpTime, QueryWarmUp.defaultRounds(kind), true,
            warmUpEncodings.stream().map(ColumnEncoding::parse).toList(), Runtime.getRuntime().availableProcessors(), true)
            : QueryWarmUp.off();
        metrics.gauge("tick.query.warmup.ms", () -> w.nanos() / 1_000_000);
        return w;
    }
}
