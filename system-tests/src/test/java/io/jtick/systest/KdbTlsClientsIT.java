package io.jtick.systest;

import io.jtick.boot.KdbPort;
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
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.rdb.RdbApplication;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PyKX 4.2.0 (unlicensed) over TLS, as q's {@code hopen`:tcps://host:port}: the rdb-service (subscribed to a
 * tickerplant over TLS) with {@code tick.tls.mode=required} answers on its kdb+ port a query over TLS (the CA given
 * as kdb+ takes it, {@code SSL_CA_CERT_FILE}) and
 * refuses the same client in plaintext. Tagged slow: the first run installs the clients from PyPI.
 */
@Tag("slow")
class KdbTlsClientsIT {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldAnswerPyKXOverTlsAndRefuseItInPlaintext() throws Exception {
        final Path python = KdbClientsVenv.python();
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC), SCHEMAS, NanoClock.SYSTEM,
            new TickMetrics()).tls(TestTls.pem("server", TlsSettings.Mode.REQUIRED, TlsSettings.ClientAuth.NONE))
            .start());
        final ConfigurableApplicationContext rdb = closer.track(new SpringApplicationBuilder(RdbApplication.class).run(
            "--server.port=0", "--server.address=127.0.0.1", "--tick.rdb.tp-host=localhost", "--tick.rdb.tp-port=" + tp.port(),
            "--tick.rdb.reconnect-delay=100ms",
            "--tick.rdb.pg-port=-1", "--tick.rdb.kdb-port=0", "--tick.tls.mode=required",
            "--tick.tls.certificate=" + TestTls.file("server.pem"), "--tick.tls.private-key=" + TestTls.file("server.key"),
            "--tick.tls.trust=" + TestTls.file("ca.pem")));
        try (FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of("localhost", tp.port(), "feed"), null)
            .tls(TlsClient.of(TestTls.trustOnly())).connect(5000)) {
            for (int id = 1; id <= 20; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TRADE, id, System.currentTimeMillis() * 1_000_000L, "IBM", "MSFT");
                assertThat(feed.awaitWritable(10_000_000_000L)).isTrue();
                assertThat(feed.send(b)).isTrue();
            }
        }
        final RealtimeDatabase db = rdb.getBean(RealtimeDatabase.class);
        await("40 rows in the RDB", Duration.ofSeconds(30), () -> db.rowCount("trade") == 40);
        final int kdb = rdb.getBean(KdbPort.class).port();
        final ProcessBuilder pb = new ProcessBuilder(python.toString(), KdbClientsVenv.SCRIPTS.resolve("kdb_tls.py").toString(),
            "localhost", String.valueOf(kdb), "select from trade").redirectErrorStream(true);
        pb.environment().put("SSL_CA_CERT_FILE", TestTls.file("ca.pem").toString());
        final Process p = pb.start();
        final String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("tls 40").contains("plain refused");
    }
}
