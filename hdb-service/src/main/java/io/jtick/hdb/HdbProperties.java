package io.jtick.hdb;

import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.nio.file.Path;

/**
 * HDB service settings ({@code tick.hdb.*}, see docs/configuration.md).
 *
 * @param root directory holding one {@code yyyy-MM-dd} directory per partition
 */
@Validated
@ConfigurationProperties("tick.hdb")
public record HdbProperties(@DefaultValue("./var/hdb") @NotNull Path root) {
}
