package io.jtick.rdb;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;
import java.util.List;

/**
 * {@code tick.rdb.*}: where the tickerplant is and what to subscribe to.
 *
 * @param tpHost         tickerplant host
 * @param tpPort         tickerplant subscriber port
 * @param name           subscriber name the TP shows in its status
 * @param tables         tables to subscribe to; empty for all
 * @param syms           symbols to subscribe to; empty for all
 * @param reconnectDelay wait between reconnect attempts
 */
@Validated
@ConfigurationProperties("tick.rdb")
public record RdbProperties(
    @NotBlank @DefaultValue("127.0.0.1") String tpHost,
    @Min(1) @Max(65535) @DefaultValue("5010") int tpPort,
    @NotBlank @DefaultValue("rdb") String name,
    @NotNull @DefaultValue({}) List<String> tables,
    @NotNull @DefaultValue({}) List<String> syms,
    @NotNull @DefaultValue("500ms") Duration reconnectDelay) {
}
