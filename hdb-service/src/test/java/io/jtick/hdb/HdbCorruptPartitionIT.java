package io.jtick.hdb;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.table.TableSegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A corrupt partition stops start-up naming the file; a corrupt block found by a query answers 500 naming file and block;
 * one found by the start-up preload of the newest day is counted and logged, and the day stays listed.
 */
class HdbCorruptPartitionIT {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    private static void flipByte(final Path file, final long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            final int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5A);
        }
    }

    private ConfigurableApplicationContext start() {
        return start(1);
    }

    private ConfigurableApplicationContext start(final int preloadDays) {
        return new SpringApplicationBuilder(HdbApplication.class).run("--server.port=0", "--server.address=127.0.0.1",
            "--tick.hdb.root=" + root, "--tick.hdb.tiering.enabled=false", "--tick.hdb.preload-days=" + preloadDays);
    }

    private static String metrics(final int port) {
        try {
            return HdbTestData.call(port, "GET", "/actuator/prometheus", null, Map.of()).body();
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldRefuseToStartOnCorruptPartitionNamingTheFile() throws IOException {
        HdbTestData.writeDay(root, DAY, "trade", 500, 5, 1, EncodingPolicy.PLAIN);
        final Path price = root.resolve("2026-11-20/trade/price");
        flipByte(price, 20);
        assertThatThrownBy(this::start)
            .rootCause()
            .isInstanceOf(CorruptPartitionException.class)
            .hasMessageContaining("header checksum mismatch")
            .hasMessageContaining("file=" + price);
    }

    @Test
    void shouldAnswer500NamingFileAndBlockWhenQueryMeetsCorruptBlock() throws Exception {
        final TableSegment source = HdbTestData.writeDay(root, DAY, "trade", 500, 5, 1, EncodingPolicy.PLAIN);
        final Path price = root.resolve("2026-11-20/trade/price");
        flipByte(price, 64 + 5);
        try (ConfigurableApplicationContext ctx = start(0)) {
            final int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
            final String firstSym = "S0000";
            final HttpResponse<String> bad = HdbTestData.call(port, "POST", "/api/query",
                "{\"table\":\"trade\",\"syms\":[\"" + firstSym + "\"],\"columns\":[\"sym\",\"price\"]}", Map.of());
            assertThat(bad.statusCode()).as(bad.body()).isEqualTo(500);
            assertThat(bad.body()).contains("file=" + price, "block=0", "\"block\":0");
            final HttpResponse<String> fine = HdbTestData.call(port, "POST", "/api/query",
                "{\"table\":\"trade\",\"columns\":[\"sym\",\"size\"],\"limit\":1000}", Map.of());
            assertThat(fine.statusCode()).as(fine.body()).isEqualTo(200);
            assertThat(fine.body()).contains("\"rowCount\":" + source.rowCount() + ",");
            assertThat(HdbTestData.call(port, "GET", "/actuator/prometheus", null, Map.of()).body())
                .contains("tick_hdb_corrupt_reads_total{application=\"hdb-service\"} 1.0");
        }
    }

    @Test
    void shouldCountCorruptBlockFoundByStartUpPreloadAndStillAnswerOtherColumns() throws Exception {
        final TableSegment source = HdbTestData.writeDay(root, DAY, "trade", 500, 5, 1, EncodingPolicy.PLAIN);
        final Path price = root.resolve("2026-11-20/trade/price");
        flipByte(price, 64 + 5);
        try (ConfigurableApplicationContext ctx = start()) {
            final int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
            await("the preload counts the corrupt block", Duration.ofSeconds(30), () -> metrics(port)
                .contains("tick_hdb_corrupt_reads_total{application=\"hdb-service\"} 1.0"));
            final HttpResponse<String> bad = HdbTestData.call(port, "POST", "/api/query",
                "{\"table\":\"trade\",\"columns\":[\"sym\",\"price\"]}", Map.of());
            assertThat(bad.statusCode()).as(bad.body()).isEqualTo(500);
            assertThat(bad.body()).contains("file=" + price, "block=0");
            final HttpResponse<String> fine = HdbTestData.call(port, "POST", "/api/query",
                "{\"table\":\"trade\",\"columns\":[\"sym\",\"size\"],\"limit\":1000}", Map.of());
            assertThat(fine.statusCode()).as(fine.body()).isEqualTo(200);
            assertThat(fine.body()).contains("\"rowCount\":" + source.rowCount() + ",");
        }
    }
}
