package io.jtick.rdb;

import io.jtick.boot.KdbPort;
import io.jtick.boot.PgPort;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.testing.TestTls;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsContexts;
import io.jtick.core.tls.TlsSettings.ClientAuth;
import io.jtick.core.tls.TlsSettings.Mode;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One rdb-service with {@code tick.tls.mode=required} on every port, with real clients: its subscription to a
 * tickerplant that needs client certificates, REST over HTTPS (the JDK's client and {@code curl --cacert}), the
 * PostgreSQL port (pgJDBC {@code sslmode=verify-full}, psql {@code sslmode=require}), the kdb+ port as {@code :tcps://}
 * and {@code openssl s_client}; plaintext on each refused, and counted in {@code tick_tls_handshake_failures_total}.
 */
class RdbTlsIT {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldServeEveryPortOverTlsAndRefusePlaintext() throws Exception {
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC), SCHEMAS, NanoClock.SYSTEM,
            new TickMetrics()).tls(TestTls.pem("server", Mode.REQUIRED, ClientAuth.NEED)).start());
        final ConfigurableApplicationContext rdb = closer.track(new SpringApplicationBuilder(RdbApplication.class).run(
            "--server.port=0", "--server.address=127.0.0.1", "--tick.rdb.tp-host=localhost", "--tick.rdb.tp-port=" + tp.port(),
            "--tick.rdb.reconnect-delay=100ms", "--tick.rdb.pg-port=0", "--tick.rdb.kdb-port=0",
            "--tick.tls.mode=required", "--tick.tls.client-auth=want", "--tick.tls.certificate=" + TestTls.file("server.pem"),
            "--tick.tls.private-key=" + TestTls.file("server.key"), "--tick.tls.trust=" + TestTls.file("ca.pem")));
        final int rest = Integer.parseInt(rdb.getEnvironment().getProperty("local.server.port"));
        await("subscribed over mutual TLS", WAIT, rdb.getBean(RdbLifecycle.class)::subscribed);
        try (FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of("localhost", tp.port(), "feed"), null)
            .tls(TlsClient.of(TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE))).connect(5000)) {
            for (int id = 1; id <= 50; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TRADE, id, System.currentTimeMillis() * 1_000_000L, "S0001", "S0002", "S0003");
                assertThat(feed.awaitWritable(10_000_000_000L)).isTrue();
                assertThat(feed.send(b)).isTrue();
            }
        }
        final RealtimeDatabase db = rdb.getBean(RealtimeDatabase.class);
        await("150 rows in the RDB", WAIT, () -> db.rowCount("trade") == 150);

        // REST: HTTPS with the JDK's client (host name verified) and curl; plain HTTP gets no answer from the API
        final HttpClient https = HttpClient.newBuilder().sslContext(TlsContexts.jdk(TestTls.trustOnly())).build();
        final HttpResponse<String> tables = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + rest + "/api/tables"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(tables.statusCode()).isEqualTo(200);
        assertThat(tables.body()).contains("\"trade\"");
        final List<String> curl = run("curl", "-sS", "--cacert", TestTls.file("ca.pem").toString(),
            "https://127.0.0.1:" + rest + "/api/status");
        assertThat(curl.get(0)).isEqualTo("0");
        assertThat(curl.get(1)).contains("\"subscribed\":true");
        final List<String> plainHttp = run("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:" + rest
            + "/api/status");
        assertThat(plainHttp.get(1)).as("plain HTTP on the HTTPS port").isNotEqualTo("200");

        // PostgreSQL: pgJDBC verifying the certificate and the host name; psql requiring TLS; a plaintext start-up refused
        final int pg = rdb.getBean(PgPort.class).port();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + pg + "/rdb?user=jtick&sslmode=verify-full"
            + "&sslrootcert=" + TestTls.file("ca.pem")); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM trade")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(150);
        }
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg + "/rdb?user=jtick&sslmode=disable"))
            .isInstanceOf(SQLException.class).hasMessageContaining("TLS is required on this port")
            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("28000"));
        final List<String> psql = run("psql", "host=127.0.0.1 port=" + pg + " user=jtick dbname=jtick sslmode=require", "-tAc",
            "SELECT count(*) FROM trade");
        assertThat(psql.get(0)).as("psql: %s", psql).isEqualTo("0");
        assertThat(psql.get(1).trim()).isEqualTo("150");

        // kdb+: TLS from the first byte (q's :tcps://); openssl s_client verifies the chain; plaintext is closed unanswered
        final int kdb = rdb.getBean(KdbPort.class).port();
        try (SSLSocket s = (SSLSocket) TlsContexts.jdk(TestTls.trustOnly()).getSocketFactory().createSocket("localhost", kdb)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("jtick:\3\0".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertThat(s.getInputStream().read()).as("the capability byte of a kdb+ login").isEqualTo(3);
        }
        final List<String> sClient = run("openssl", "s_client", "-connect", "127.0.0.1:" + kdb, "-CAfile", TestTls.file("ca.pem")
            .toString(), "-verify_return_error", "-tls1_3", "-brief");
        assertThat(sClient.get(0)).as("openssl s_client: %s", sClient).isEqualTo("0");
        assertThat(sClient.get(1)).contains("TLSv1.3");
        try (Socket plain = new Socket("127.0.0.1", kdb)) {
            plain.setSoTimeout(10_000);
            plain.getOutputStream().write("jtick:\3\0".getBytes(StandardCharsets.US_ASCII));
            assertThat(plain.getInputStream().read()).as("closed without an answer, as kdb+ -E 2").isEqualTo(-1);
        }

        final HttpResponse<String> prometheus = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + rest
            + "/actuator/prometheus")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(prometheus.body()).contains("tick_tls_handshake_failures_total{port=\"pg\",reason=\"plaintext\"} 1.0")
            .contains("tick_tls_handshake_failures_total{port=\"kdb\",reason=\"plaintext\"} 1.0");
    }

    @Test
    void shouldTakeAMappedClientCertificateForTheTokenOverHttps() throws Exception {
        final Path subjects = dir.resolve("client-subjects");
        Files.writeString(subjects, "CN=feed-sim -> read\n");
        final ConfigurableApplicationContext rdb = closer.track(new SpringApplicationBuilder(RdbApplication.class).run(
            "--server.port=0", "--server.address=127.0.0.1", "--tick.rdb.tp-host=localhost", "--tick.rdb.tp-port=1",
            "--tick.rdb.pg-port=0", "--tick.rdb.kdb-port=0",
            "--tick.api.token=secret", "--tick.api.guard=always", "--tick.api.protect-reads=true",
            "--tick.tls.mode=required", "--tick.tls.client-auth=want", "--tick.tls.certificate=" + TestTls.file("server.pem"),
            "--tick.tls.private-key=" + TestTls.file("server.key"), "--tick.tls.trust=" + TestTls.file("ca.pem"),
            "--tick.tls.client-subjects=" + subjects));
        final URI tables = URI.create("https://localhost:" + rdb.getEnvironment().getProperty("local.server.port") + "/api/tables");
        final HttpResponse<String> mapped = HttpClient.newBuilder()
            .sslContext(TlsContexts.jdk(TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE))).build()
            .send(HttpRequest.newBuilder(tables).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(mapped.statusCode()).as("a read with a mapped certificate and no token: %s", mapped.body()).isEqualTo(200);
        final HttpResponse<String> unmapped = HttpClient.newBuilder()
            .sslContext(TlsContexts.jdk(TestTls.pem("other-host", Mode.REQUIRED, ClientAuth.NONE))).build()
            .send(HttpRequest.newBuilder(tables).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unmapped.statusCode()).as("an unmapped certificate is no token").isEqualTo(401);
        final HttpClient none = HttpClient.newBuilder().sslContext(TlsContexts.jdk(TestTls.trustOnly())).build();
        assertThat(none.send(HttpRequest.newBuilder(tables).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(none.send(HttpRequest.newBuilder(tables).header("Authorization", "Bearer secret").build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).as("the token still works").isEqualTo(200);
    }

    /** Runs a command with stdin closed; returns its exit code and its output (stdout and stderr together). */
    private static List<String> run(final String... command) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
            new java.io.File("/dev/null"))).start();
        final String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        final List<String> r = new ArrayList<>();
        r.add(String.valueOf(p.exitValue()));
        r.add(out);
        return r;
    }
}
