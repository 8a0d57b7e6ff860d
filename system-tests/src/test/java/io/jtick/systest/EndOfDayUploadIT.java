package io.jtick.systest;

import io.jtick.core.testing.Closer;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.rdb.RdbApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.EndOfDayIT.expected;
import static io.jtick.systest.EndOfDayIT.hdbRows;
import static io.jtick.systest.EndOfDayIT.send;
import static io.jtick.systest.TickStack.WAIT;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * End of day as the Helm chart runs it: the RDB and the HDB each with a directory of its own and one
 * API token, both asking for it as services bound off loopback do ({@code tick.api.guard=always} on
 * loopback ports). The RDB writes the day into its own directory, sends it to the HDB
 * ({@code PUT /api/partitions/<date>} with the token), the HDB installs and loads it, and only then
 * does the RDB clear its rows and delete its copy. A second RDB with a wrong token is refused: it
 * keeps its rows and its copy and says why, and the HDB counts the refusal.
 */
class EndOfDayUploadIT {
    private static final String TOKEN = "eod-t0ken-0123456789";

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldSendTheDayToAnHdbThatSharesNoDirectory() throws Exception {
        final Path rdbDir = dir.resolve("rdb-eod");
        final Map<String, String> guard = Map.of("tick.api.guard", "always", "tick.api.token", TOKEN);
        final Map<String, String> rdbSettings = new java.util.LinkedHashMap<>(guard);
        rdbSettings.put("tick.rdb.hdb.root", rdbDir.toString());
        rdbSettings.put("tick.rdb.hdb.transfer", "upload");
        final TickStack stack = TickStack.start(dir, closer, guard, rdbSettings);
        final TickerplantServer tp = stack.tp();
        final int hdbPort = stack.hdbPort();
        final int rdbPort = stack.rdbPort();
        assertThat(rdbDir).isNotEqualTo(stack.hdbRoot());

        final Path wrongDir = dir.resolve("rdb2-eod");
        final ConfigurableApplicationContext wrong = closer.track(TickStack.app(RdbApplication.class, "rdb-wrong-token",
            "--tick.rdb.name=rdb-wrong-token", "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms",
            "--tick.rdb.hdb.root=" + wrongDir, "--tick.rdb.hdb.transfer=upload", "--tick.rdb.hdb.url=http://127.0.0.1:" + hdbPort,
            "--tick.api.token=not-the-token"));
        final int wrongPort = TickStack.port(wrong);
        await("second RDB subscribed", WAIT, () -> get(wrongPort, "/api/status").get("subscribed").asBoolean());

        final LocalDate day = tp.call(t -> t.date());
        send(stack.feed(), 1, 200);
        await("both RDBs have the day", WAIT, () -> stack.rdbTradeRows() == 600
            && get(wrongPort, "/api/status").path("tables").path("trade").asLong(0) == 600);
        tp.endOfDay();
        await("RDB end of day", WAIT, () -> get(rdbPort, "/api/status").get("endOfDays").asInt() == 1);
        assertThat(hdbRows(hdbPort, day)).isEqualTo(expected(1, 200));
        get(rdbPort, "/api/tables").forEach(t -> assertThat(t.get("rows").asLong()).as(t.toString()).isZero());
        final JsonNode writeDown = get(rdbPort, "/api/status").get("writeDown");
        assertThat(writeDown.get("transfer").asString()).isEqualTo("upload");
        assertThat(writeDown.get("lastWrite").get("rows").asLong()).isEqualTo(600);
        assertThat(Files.exists(rdbDir.resolve(day.toString()))).as("the RDB's copy is gone once the HDB has the day").isFalse();
        assertThat(Files.isDirectory(stack.hdbRoot().resolve(day.toString()).resolve("trade"))).isTrue();

        await("wrong-token RDB end of day: written, not delivered", WAIT,
            () -> get(wrongPort, "/api/status").get("writeDown").get("undelivered").size() == 1);
        final JsonNode refused = get(wrongPort, "/api/status");
        assertThat(refused.get("writeDown").get("undelivered").get(0).asString()).isEqualTo(day.toString());
        assertThat(refused.get("writeDown").get("lastError").asString()).contains("HDB refused the partition", "status=401",
            "tick.api.token must be the HDB's");
        assertThat(Files.isDirectory(wrongDir.resolve(day.toString()).resolve("trade"))).as("local copy kept for the retries").isTrue();
        assertThat(call(hdbPort, "GET", "/actuator/prometheus", null, "text/plain").body())
            .containsPattern("tick_api_refused_total\\{[^}]*reason=\"token-wrong\"[^}]*\\} 1\\.0");
        assertThat(hdbRows(hdbPort, day)).as("the refused copy changed nothing").isEqualTo(expected(1, 200));
    }
}
