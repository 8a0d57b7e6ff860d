package io.jtick.hdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tiering job runs on its own schedule (today in the configured zone); a bad schedule stops start-up naming the key. */
class HdbTieringScheduleIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path root;

    private ConfigurableApplicationContext start(final String... more) {
        final String[] args = new String[more.length + 3];
        args[0] = "--server.port=0";
        args[1] = "--server.address=127.0.0.1";
        args[2] = "--tick.hdb.root=" + root;
        System.arraycopy(more, 0, args, 3, more.length);
        return new SpringApplicationBuilder(HdbApplication.class).run(args);
    }

    private JsonNode get(final int port, final String path) throws Exception {
        return JSON.readTree(HdbTestData.call(port, "GET", path, null, Map.of()).body());
    }

    @Test
    void shouldMoveOldPartitionOnFixedDelaySchedule() throws Exception {
        final LocalDate old = LocalDate.now(ZoneOffset.UTC).minusDays(40);
        HdbTestData.writeDay(root, old, "trade", 300, 5, 1, EncodingPolicy.PLAIN);
        try (ConfigurableApplicationContext ctx = start("--tick.hdb.tiering.fixed-delay=200ms", "--tick.hdb.tiering.zone=UTC")) {
            final int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
            assertThat(get(port, "/api/status").get("tieringSchedule").asString()).isEqualTo("fixed delay PT0.2S");
            await("a scheduled tiering run moved the partition to cold (zstd:3)", Duration.ofSeconds(30), () -> {
                try {
                    return get(port, "/api/partitions").get(0).get("tables").get(0).get("columns").get(2).get("encoding").asString()
                        .endsWith("zstd:3");
                } catch (final Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(get(port, "/api/partitions").get(0).get("tier").asString()).isEqualTo("cold");
            assertThat(get(port, "/api/status").get("lastTiering").get("failed")).isEmpty();
        }
    }

    @Test
    void shouldRefuseBadScheduleNamingTheKey() {
        assertThatThrownBy(() -> start("--tick.hdb.tiering.cron=every morning").close())
            .hasStackTraceContaining("bad cron [key=tick.hdb.tiering.cron, value=every morning]");
        assertThatThrownBy(() -> start("--tick.hdb.tiers[0].name=hot", "--tick.hdb.tiers[0].encoding=lz5").close())
            .hasStackTraceContaining("bad tier policy [key=tick.hdb.tiers]");
        assertThatThrownBy(() -> start("--tick.hdb.block-bytes=100KB").close())
            .hasStackTraceContaining("[key=tick.hdb.block-bytes, value=102400B]");
    }
}
