package io.jtick.boot;

import io.jtick.core.query.model.QueryLimits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code tick.query.*}: what one query may return (RDB, HDB and gateway alike). Over either limit
 * a query answers 413 with a message.
 *
 * @param maxRows  result rows allowed (group rows for aggregates)
 * @param maxBytes encoded JSON or CSV bytes allowed
 * @param warmUpRounds rounds of {@code QueryEngine.warmUp} a service runs as it starts (0, the default: none); it makes
 *                 the first small queries faster but, measured, slowed the RDB's large grouped scan (bench-jmh README)
 */
@Validated
@ConfigurationProperties("tick.query")
public record QueryProperties(
    @Min(1) @Max(2_000_000_000L) @DefaultValue("1000000") long maxRows,
    @NotNull @DefaultValue("256MB") DataSize maxBytes,
    @Min(0) @Max(100_000) @DefaultValue("0") int warmUpRounds) {

    public QueryLimits limits() {
        return new QueryLimits(maxRows, maxBytes.toBytes());
    }
}
