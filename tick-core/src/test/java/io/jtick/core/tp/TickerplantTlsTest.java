package io.jtick.core.tp;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.testing.TestTls;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.tls.TlsSettings.ClientAuth;
import io.jtick.core.tls.TlsSettings.Mode;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tickerplant's port behind TLS with jtick's own clients: feeds, subscribers and a chained tickerplant over TLS
 * with client certificates; plaintext, untrusted, expired and certificate-less clients refused and counted; the
 * server's name verified by the clients; {@code optional} serving both on one port.
 */
@ExtendWith(LeakCheck.class)
class TickerplantTlsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    private TickerplantServer tp(final String journal, final TlsSettings tls, final TickMetrics metrics) throws IOException {
        return closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve(journal)).withPort(0), SCHEMAS,
            NanoClock.SYSTEM, metrics).tls(tls).start());
    }

    private TickClient subscribe(final int port, final Collector c, final TlsSettings tls) {
        final TickClient client = closer.track(new TickClient(TickClient.Settings.of("127.0.0.1", port, "rdb"), c, c::fromSequence, null,
            NanoClock.SYSTEM).tls(TlsClient.of(tls)));
        client.start();
        return client;
    }

    private FeedPublisher feed(final String host, final int port, final TlsSettings tls) {
        return closer.track(new FeedPublisher(FeedPublisher.Settings.of(host, port, "md"), null).tls(TlsClient.of(tls)));
    }

    private static void send(final FeedPublisher f, final long id) {
        final ByteBuf b = f.alloc().directBuffer(256);
        TestSupport.trade(b, TRADE, id, 1_000_000_000L * id, "A");
        assertThat(f.awaitWritable(5_000_000_000L)).isTrue();
        assertThat(f.send(b)).isTrue();
    }

    private static long failures(final TickMetrics m, final String port, final String reason) {
        return m.counter("tick.tls.handshake.failures|port=" + port + ",reason=" + reason).get();
    }

    @Test
    void shouldCarryFeedsSubscribersAndAChainedTickerplantOverMutualTls() throws Exception {
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = tp("up", TestTls.pem("server", Mode.REQUIRED, ClientAuth.NEED), metrics);
        final TickerplantServer chained = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("chained"))
            .withPort(0).withUpstream("localhost", tp.port()), SCHEMAS, NanoClock.SYSTEM, new TickMetrics())
            .tls(TestTls.keyStore("server", Mode.REQUIRED, ClientAuth.NEED)).start());
        final Collector direct = new Collector();
        final Collector viaChain = new Collector();
        final TickClient a = subscribe(tp.port(), direct, TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE));
        final TickClient b = subscribe(chained.port(), viaChain, TestTls.keyStore("client", Mode.REQUIRED, ClientAuth.NONE));
        await("subscribed over TLS, the chained TP upstream too", WAIT, () -> a.isSubscribed() && b.isSubscribed()
            && tp.status().subscribers().size() == 2);
        final FeedPublisher f = feed("localhost", tp.port(), TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE));
        f.connect(5000);
        for (int id = 1; id <= 50; id++) {
            send(f, id);
        }
        await("rows at both subscribers", WAIT, () -> direct.rows.size() == 50 && viaChain.rows.size() == 50);
        assertThat(metrics.counter("tick.tls.handshakes|port=tp").get()).isEqualTo(3);

        final FeedPublisher plain = feed("127.0.0.1", tp.port(), TlsSettings.OFF);
        assertThatThrownBy(() -> plain.connect(5000)).isInstanceOf(IOException.class)
            .hasMessageContaining("access-denied").hasMessageContaining("TLS is required on this port");
        assertThat(failures(metrics, "tp", "plaintext")).isEqualTo(1);

        final TickClient none = subscribe(tp.port(), new Collector(), TestTls.trustOnly());
        await("a client without a certificate refused", WAIT, () -> failures(metrics, "tp", "no-client-certificate") >= 1);
        none.close();
        final TickClient old = subscribe(tp.port(), new Collector(), TestTls.pem("expired-client", Mode.REQUIRED, ClientAuth.NONE));
        await("an expired client certificate refused", WAIT, () -> failures(metrics, "tp", "expired") >= 1);
        old.close();
        // the JDK sends only a certificate of a CA the server names, so this client sends none (openssl s_client sends it anyway)
        final long before = failures(metrics, "tp", "no-client-certificate");
        subscribe(tp.port(), new Collector(), TestTls.pem("rogue-client", Mode.REQUIRED, ClientAuth.NONE));
        await("a client certificate of an unknown CA not accepted", WAIT, () -> failures(metrics, "tp", "no-client-certificate") > before);
        assertThat(tp.status().journalSequence()).isEqualTo(50);
        assertThat(tp.status().subscribers()).hasSize(2);
    }

    @Test
    void shouldHaveClientsRefuseAServerWithAnExpiredCertificateOrAnotherHostName() throws Exception {
        final TickMetrics expiredMetrics = new TickMetrics();
        final TickerplantServer expired = tp("expired", TestTls.pem("expired-server", Mode.REQUIRED, ClientAuth.NONE), expiredMetrics);
        final TickMetrics otherMetrics = new TickMetrics();
        final TickerplantServer other = tp("other", TestTls.pem("other-host", Mode.REQUIRED, ClientAuth.NONE), otherMetrics);
        final Collector c1 = new Collector();
        final Collector c2 = new Collector();
        subscribe(expired.port(), c1, TestTls.trustOnly());
        subscribe(other.port(), c2, TestTls.trustOnly());
        await("both clients refused the server's certificate", WAIT, () -> failures(expiredMetrics, "tp", "peer-refused") >= 1
            && failures(otherMetrics, "tp", "peer-refused") >= 1);
        assertThat(expired.status().subscribers()).isEmpty();
        assertThat(other.status().subscribers()).isEmpty();
        assertThat(c1.subscribedCount + c2.subscribedCount).isZero();
    }

    @Test
    void shouldTakeAMappedClientCertificateForTheToken() throws Exception {
        final Path subjects = dir.resolve("client-subjects");
        Files.writeString(subjects, "# services that present a certificate instead of the token\n"
            + "CN=feed-sim -> write\n" + "cn = elsewhere.example -> read\n");
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("mapped")).withPort(0),
            SCHEMAS, NanoClock.SYSTEM, metrics).access(new AccessSettings("secret", AccessSettings.Guard.ALWAYS, true))
            .tls(TestTls.pem("server", Mode.REQUIRED, ClientAuth.WANT).withClientSubjects(subjects)).start());
        // a subscriber whose certificate is mapped to read, no token
        final Collector reader = new Collector();
        final TickClient sub = subscribe(tp.port(), reader, TestTls.pem("other-host", Mode.REQUIRED, ClientAuth.NONE));
        await("the read-mapped subscriber subscribed without a token", WAIT, sub::isSubscribed);
        // a feed whose certificate is mapped to write, no token
        final FeedPublisher f = feed("127.0.0.1", tp.port(), TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE));
        f.connect(5000);
        for (int id = 1; id <= 5; id++) {
            send(f, id);
        }
        await("rows published and delivered on certificates alone", WAIT, () -> reader.rows.size() == 5);

        // read is not write; an unmapped certificate is no token; a token still works without a certificate
        assertThatThrownBy(() -> feed("127.0.0.1", tp.port(), TestTls.pem("other-host", Mode.REQUIRED, ClientAuth.NONE)).connect(5000))
            .isInstanceOf(IOException.class).hasMessageContaining("access-denied").hasMessageContaining("the API token is required");
        assertThatThrownBy(() -> feed("127.0.0.1", tp.port(), TestTls.pem("server", Mode.REQUIRED, ClientAuth.NONE)).connect(5000))
            .isInstanceOf(IOException.class).hasMessageContaining("access-denied").hasMessageContaining("the API token is required");
        final FeedPublisher withToken = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", tp.port(), "md2")
            .withToken("secret"), null).tls(TlsClient.of(TestTls.trustOnly())));
        withToken.connect(5000);
        send(withToken, 6);
        await("the token's row delivered", WAIT, () -> reader.rows.size() == 6);
        assertThat(metrics.counter("tick.tp.errors|code=access-denied").get()).isEqualTo(2);
        assertThat(metrics.counter("tick.tls.client.certificates|port=tp,subject=mapped").get()).isEqualTo(3);
        assertThat(metrics.counter("tick.tls.client.certificates|port=tp,subject=unmapped").get()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAClientSubjectsFileWithABadLineOrWithoutClientCertificates() throws IOException {
        final Path bad = dir.resolve("bad-subjects");
        Files.writeString(bad, "CN=rdb -> write\nCN=gw -> admin\n");
        assertThatThrownBy(() -> TestTls.pem("server", Mode.REQUIRED, ClientAuth.WANT).withClientSubjects(bad).validate())
            .hasMessageContaining("line 2").hasMessageContaining("CN=gw -> admin");
        final Path good = dir.resolve("subjects");
        Files.writeString(good, "CN=rdb -> write\n");
        assertThatThrownBy(() -> TestTls.pem("server", Mode.REQUIRED, ClientAuth.NONE).withClientSubjects(good).validate())
            .hasMessageContaining("client-subjects needs client-auth want or need");
    }

    @Test
    void shouldServeARenewedCertificateToNewConnectionsWithoutARestart() throws Exception {
        final Path cert = dir.resolve("tp.pem");
        final Path key = dir.resolve("tp.key");
        Files.copy(TestTls.file("expired-server.pem"), cert);
        Files.copy(TestTls.file("expired-server.key"), key);
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = tp("renew", new TlsSettings(Mode.REQUIRED, ClientAuth.NONE, cert, key, null, null, null,
            TestTls.file("ca.pem"), null, null, TlsSettings.Provider.JDK), metrics);
        final Collector c = new Collector();
        final TickClient client = subscribe(tp.port(), c, TestTls.trustOnly());
        await("the expired certificate refused by the client", WAIT, () -> failures(metrics, "tp", "peer-refused") >= 1);

        // a renewal caught half way: the new certificate beside a key that is not its own is not loaded
        Files.copy(TestTls.file("server.pem"), cert, StandardCopyOption.REPLACE_EXISTING);
        await("the mismatched pair refused, the old context kept", WAIT,
            () -> metrics.counter("tick.tls.reloads|port=tp,result=failed").get() >= 1);
        assertThat(client.isSubscribed()).isFalse();

        Files.copy(TestTls.file("server.key"), key, StandardCopyOption.REPLACE_EXISTING);
        await("the renewed certificate served to the next connection", WAIT, client::isSubscribed);
        assertThat(metrics.counter("tick.tls.reloads|port=tp,result=ok").get()).isEqualTo(1);
    }

    @Test
    void shouldServeTlsAndPlaintextOnOnePortWhenOptional() throws Exception {
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = tp("opt", TestTls.pem("server", Mode.OPTIONAL, ClientAuth.WANT), metrics);
        final Collector tls = new Collector();
        final Collector plain = new Collector();
        final TickClient a = subscribe(tp.port(), tls, TestTls.trustOnly());
        final TickClient b = subscribe(tp.port(), plain, TlsSettings.OFF);
        await("both subscribed", WAIT, () -> a.isSubscribed() && b.isSubscribed());
        final FeedPublisher f = feed("127.0.0.1", tp.port(), TestTls.pem("client", Mode.REQUIRED, ClientAuth.NONE));
        f.connect(5000);
        for (int id = 1; id <= 10; id++) {
            send(f, id);
        }
        await("rows at both", WAIT, () -> tls.rows.size() == 10 && plain.rows.size() == 10);
        assertThat(metrics.counter("tick.tls.handshakes|port=tp").get()).isEqualTo(2);
        assertThat(failures(metrics, "tp", "plaintext")).isZero();
    }
}
