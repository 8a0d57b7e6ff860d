package io.jtick.core.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The REST side of the gateway against a small HTTP server that answers as rdb-service does. */
@ExtendWith(LeakCheck.class)
// Java 17's HttpClient has no close() (it comes in Java 21): its selector thread, with its epoll and
// eventfd descriptors, ends only once the client is garbage-collected, and its default executor's idle
// workers after 60 s. Sockets are still checked: every connection to the test server must be closed.
@LeakCheck.Options(ignoreThreads = "HttpClient-\\d+-(SelectorManager|Worker-\\d+)",
    ignoreFiles = "anon_inode:\\[(eventpoll|eventfd)\\]")
class RemoteRdbSourceTest {
    private HttpServer server;
    private final AtomicReference<String> lastQuery = new AtomicReference<>();
    private volatile int status = 200;
    private volatile String day = "2026-11-21";
    private volatile String body = "time,sym,price,size,cond\n"
        + "2026-11-21T09:30:00Z,AAPL,100.5,10,N\n"
        + "2026-11-21T09:30:00.000000123Z,\"A,B\",101.25,20,\",\"\n"
        + "2026-11-21T09:30:01.5Z,AAPL,99.0,30,\"\"\"\"\n";

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/tables", ex -> reply(ex, 200, "application/json",
            "[{\"name\":\"trade\",\"columns\":[{\"name\":\"time\",\"type\":\"timestamp\"},{\"name\":\"sym\",\"type\":\"symbol\"},"
                + "{\"name\":\"price\",\"type\":\"float64\"},{\"name\":\"size\",\"type\":\"int64\"},{\"name\":\"cond\",\"type\":\"char\"}],"
                + "\"rows\":3}]"));
        server.createContext("/api/query", ex -> {
            lastQuery.set(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8) + " accept=" + ex.getRequestHeaders()
                .getFirst("Accept"));
            ex.getResponseHeaders().add("X-Jtick-Day", day);
            ex.getResponseHeaders().add("X-Jtick-Types", "timestamp,symbol,float64,int64,char");
            reply(ex, status, status == 200 ? "text/csv" : "application/json", body);
        });
        server.start();
    }

    private static void reply(final HttpExchange ex, final int code, final String type, final String text) throws IOException {
        final byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", type);
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private RemoteRdbSource source() {
        return new RemoteRdbSource("http://127.0.0.1:" + server.getAddress().getPort(), Duration.ofSeconds(5));
    }

    @Test
    void shouldReadTheSchemaAndTheRowsOfTheDay() {
        final RemoteRdbSource src = source();
        assertThat(src.schema("trade")).isEqualTo(TableSchema.trade(0));
        assertThat(src.schema("quote")).isNull();
        final ScanHint hint = new ScanHint(List.of("time", "sym", "price", "size", "cond"),
            java.util.Map.of("sym", java.util.Map.of("in", List.of("AAPL"))));
        final List<TableSegment> segs = src.segments("trade", 20_770, 20_780, hint);
        assertThat(lastQuery.get()).isEqualTo("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-13\",\"to\":\"2026-11-23\"},"
            + "\"where\":{\"sym\":{\"in\":[\"AAPL\"]}},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]} accept=text/csv");
        assertThat(segs).hasSize(1);
        final TableSegment s = segs.get(0);
        assertThat(s.epochDay()).isEqualTo(20_778);
        final ResultTable r = new QueryEngine().query("{\"table\":\"trade\"}", new MemorySource().add(s));
        assertThat(r.rows()).containsExactly(
            List.of(1_795_253_400_000_000_000L, "AAPL", 100.5, 10L, (long) 'N'),
            List.of(1_795_253_400_000_000_123L, "A,B", 101.25, 20L, (long) ','),
            List.of(1_795_253_401_500_000_000L, "AAPL", 99.0, 30L, (long) '"'));
    }

    @Test
    void shouldGiveNothingWhenTheRdbDayIsOutsideTheDates() {
        day = "2026-11-22";
        assertThat(source().segments("trade", 20_770, 20_778, new ScanHint(List.of("time", "sym"), null))).isEmpty();
    }

    @Test
    void shouldPassTheRdbsRefusalOn() {
        status = 413;
        body = "{\"error\":\"result over the row limit [rows>3, maxRows=3]: narrow the query\",\"status\":413}";
        assertThatThrownBy(() -> source().segments("trade", 0, 30_000, new ScanHint(List.of("time", "sym"), null)))
            .isInstanceOf(QueryException.class)
            .hasMessage("rdb: result over the row limit [rows>3, maxRows=3]: narrow the query [status=413]")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.TOO_LARGE);
    }

    @Test
    void shouldSayWhenTheRdbIsUnreachable() {
        server.stop(0);
        assertThatThrownBy(() -> source().schema("trade"))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("RDB unreachable [url=http://127.0.0.1:")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.UNAVAILABLE);
    }
}
