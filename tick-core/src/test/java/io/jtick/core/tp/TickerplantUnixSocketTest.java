package io.jtick.core.tp;

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
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.Transport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The tickerplant's unix domain socket ({@link TickerplantServer#unixSocket}): real sockets on both the
 * socket file and the TCP port of one tickerplant, feeds and subscribers on either, bad input answered.
 */
@ExtendWith(LeakCheck.class)
@Timeout(120)
class TickerplantUnixSocketTest {
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

    private TickerplantServer startTp(final Path socket, final TickMetrics metrics) throws IOException {
        assumeTrue(Transport.isEpoll(), "unix sockets need the native epoll transport, not loaded here");
        return closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0), SCHEMAS,
            NanoClock.SYSTEM, metrics).unixSocket(socket).start());
    }

    private TickClient subscribe(final Address tp, final Collector c) {
        final TickClient client = new TickClient(TickClient.Settings.of(List.of(tp), "sub-" + tp.port()), c, c::fromSequence, null,
            NanoClock.SYSTEM);
        client.start();
        return closer.track(client);
    }

    private FeedPublisher feed(final Address tp, final String name) throws IOException {
        return closer.track(new FeedPublisher(FeedPublisher.Settings.of(List.of(tp), name), null).connect(5000));
    }

    private static void send(final FeedPublisher f, final long id, final String... syms) {
        final ByteBuf b = f.alloc().directBuffer(256);
        TestSupport.trade(b, TRADE, id, 1_000_000_000L * id, syms);
        assertThat(f.awaitWritable(5_000_000_000L)).isTrue();
        assertThat(f.send(b)).isTrue();
    }

    @Test
    void shouldServeFeedsAndSubscribersOnTheSocketFileAndTheTcpPortAlike() throws Exception {
        final Path socket = dir.resolve("run/tp.sock");
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = startTp(socket, metrics);
        assertThat(socket).exists();
        final Address unix = Address.unix(socket.toString());
        final Collector overUnix = new Collector();
        final Collector overTcp = new Collector();
        final TickClient a = subscribe(unix, overUnix);
        final TickClient b = subscribe(new Address("127.0.0.1", tp.port()), overTcp);
        await("both subscribed", WAIT, () -> a.isSubscribed() && b.isSubscribed());
        final FeedPublisher unixFeed = feed(unix, "unix-feed");
        final FeedPublisher tcpFeed = feed(new Address("127.0.0.1", tp.port()), "tcp-feed");
        for (int id = 1; id <= 100; id++) {
            send(id % 2 == 0 ? unixFeed : tcpFeed, id, "IBM", id % 3 == 0 ? "AAPL" : "MSFT");
        }
        await("every row at both subscribers", WAIT, () -> overUnix.rows.size() == 200 && overTcp.rows.size() == 200);
        assertThat(overUnix.rows).isEqualTo(overTcp.rows);
        assertThat(overUnix.sequences).hasSize(100).first().isEqualTo(1L);
        assertThat(overUnix.lastSequence).isEqualTo(100);
        assertThat(tp.status().subscribers()).extracting(TickerplantStatus.SubscriberStatus::remote)
            .as("the unix subscriber named by its socket").contains("unix:" + socket).anyMatch(r -> r.contains("127.0.0.1"));
        assertThat(metrics.counter("tick.tp.rows").get()).isEqualTo(200);

        tp.close();
        assertThat(socket).as("the socket file goes with the tickerplant").doesNotExist();
    }

    @Test
    void shouldAnswerBadInputOnTheSocketWithAnErrorAndKeepServing() throws Exception {
        final Path socket = dir.resolve("tp.sock");
        final TickMetrics metrics = new TickMetrics();
        final TickerplantServer tp = startTp(socket, metrics);
        final Collector c = new Collector();
        final TickClient client = subscribe(Address.unix(socket.toString()), c);
        await("subscribed", WAIT, client::isSubscribed);
        final FeedPublisher good = feed(Address.unix(socket.toString()), "good");
        send(good, 1, "A");

        final ByteBuf frame = TestSupport.tradeFrame(TRADE, 2, "B");
        final byte[] unknown = new byte[frame.readableBytes()];
        frame.getBytes(0, unknown);
        frame.release();
        unknown[FrameDescriptor.TABLE_NAME_OFFSET] = 'x';
        assertThat(rawError(socket, unknown)).startsWith("unknown-table");
        final byte[] huge = new byte[16];
        Unpooled.wrappedBuffer(huge).setIntLE(0, 1 << 30);
        assertThat(rawError(socket, huge)).startsWith("oversized-frame");

        send(good, 3, "C");
        await("the good feed still served", WAIT, () -> c.rows.size() == 2);
        assertThat(c.rows).containsExactly("trade/A/1000", "trade/C/3000");
        assertThat(metrics.counter("tick.tp.errors|code=unknown-table").get()).isEqualTo(1);
        assertThat(metrics.counter("tick.tp.errors|code=oversized-frame").get()).isEqualTo(1);
        assertThat(tp.status().journalSequence()).isEqualTo(2);
    }

    @Test
    void shouldReplaceAStaleSocketFileAndRefuseOneInUse() throws Exception {
        assumeTrue(Transport.isEpoll(), "unix sockets need the native epoll transport, not loaded here");
        final Path socket = dir.resolve("tp.sock");
        // a socket file left by a process that is gone: bound, then its channel closed without deleting the file
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        final TickerplantServer tp = startTp(socket, new TickMetrics());
        final Collector c = new Collector();
        final TickClient client = subscribe(Address.unix(socket.toString()), c);
        await("subscribed on the replaced socket", WAIT, client::isSubscribed);

        final TickerplantServer second = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal-2")).withPort(0),
            SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).unixSocket(socket);
        assertThatThrownBy(second::start).isInstanceOf(IOException.class)
            .hasMessageContaining("another process listens on it [path=" + socket + "]");
        assertThat(tp.status().subscribers()).hasSize(1);

        final Path notASocket = Files.writeString(dir.resolve("plain-file"), "x");
        final TickerplantServer third = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal-3")).withPort(0),
            SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).unixSocket(notASocket);
        assertThatThrownBy(third::start).hasMessageContaining("the path is not a socket");
        assertThat(notASocket).hasContent("x");
    }

    @Test
    void shouldRefuseTheSocketWithTlsOrAPathTooLong() throws Exception {
        assumeTrue(Transport.isEpoll(), "unix sockets need the native epoll transport, not loaded here");
        final TickerplantServer withTls = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0), SCHEMAS,
            NanoClock.SYSTEM, new TickMetrics()).tls(TestTls.pem("server", TlsSettings.Mode.REQUIRED, TlsSettings.ClientAuth.NONE))
            .unixSocket(dir.resolve("t.sock"));
        assertThatThrownBy(withTls::start).hasMessageContaining("tick.tp.unix-socket cannot be combined with TLS");
        assertThat(dir.resolve("t.sock")).doesNotExist();
        assertThatThrownBy(() -> new TickerplantServer(TickerplantSettings.defaults(dir.resolve("j")), SCHEMAS, NanoClock.SYSTEM,
            new TickMetrics()).unixSocket(Path.of("/" + "d".repeat(120)))).hasMessageContaining("bad unix socket path");
    }

    /** Sends raw bytes on a new connection to the socket file; "code: message" of the error frame the TP answers with. */
    private static String rawError(final Path socket, final byte[] bytes) throws IOException {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return Frames.errorReply(Channels.newInputStream(ch), Channels.newOutputStream(ch), bytes);
        }
    }
}
