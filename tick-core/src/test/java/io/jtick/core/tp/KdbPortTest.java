package io.jtick.core.tp;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.kdb.KdbCompression;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.KdbTestClient;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.longs;
import static io.jtick.core.testing.KdbObjects.show;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kdb+ port of a real {@link TickerplantServer} over loopback sockets. */
@ExtendWith(LeakCheck.class)
class KdbPortTest {
    @TempDir
    Path dir;

    private TickerplantServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private TickerplantServer start(final KdbSettings kdb) throws IOException {
        server = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, new TickMetrics()).kdb(kdb).start();
        return server;
    }

    @Test
    void shouldHaveNoKdbPortUnlessAskedFor() throws IOException {
        server = new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, new TickMetrics()).start();
        assertThat(server.kdbPort()).isEqualTo(-1);
    }

    @Test
    void shouldTakeCompressedBigEndianUpdatesAndPushThemToSubscribers() throws Exception {
        start(KdbSettings.onPort(0));
        try (KdbTestClient sub = KdbTestClient.connect(server.kdbPort(), "rdb:");
             KdbTestClient feed = KdbTestClient.connect(server.kdbPort(), "feed:secret")) {
            assertThat(sub.capability()).isEqualTo(KdbDescriptor.CAPABILITY);
            final KdbObjects.Message answer = sub.call(call(".u.sub", sym("trade"), syms("S7")));
            assertThat(answer.type()).isEqualTo(KdbDescriptor.RESPONSE);
            assertThat(show(answer.value())).isEqualTo("(`trade;[time:timestamp[] sym:[] price:[] size:[] cond:])");

            final int n = 2000;
            final String[] s = new String[n];
            final double[] p = new double[n];
            final long[] z = new long[n];
            for (int k = 0; k < n; k++) {
                s[k] = "S" + (k % 10);
                p[k] = 10 + k % 10;
                z[k] = k;
            }
            final ByteBuf plain = KdbObjects.message(ByteBufAllocator.DEFAULT, false, KdbDescriptor.ASYNC, call(".u.upd", sym("trade"),
                list(syms(s), floats(p), longs(z), KdbObjects.chars("N".repeat(n)))));
            final ByteBuf compressed = KdbCompression.compress(plain, ByteBufAllocator.DEFAULT);
            plain.release();
            assertThat(compressed).as("q compresses such a message to a remote host").isNotNull();
            try {
                feed.write(compressed);
            } finally {
                compressed.release();
            }
            final KdbObjects.Message pushed = sub.read();
            assertThat(pushed.type()).isEqualTo(KdbDescriptor.ASYNC);
            final Map<?, ?> table = (Map<?, ?>) ((List<?>) pushed.value()).get(2);
            assertThat((String[]) table.get("sym")).hasSize(n / 10).containsOnly("S7");
            assertThat((long[]) table.get("size")).startsWith(7, 17, 27).endsWith(n - 3);
            await("journalled", Duration.ofSeconds(10), () -> server.status().journalSequence() == 1);

            server.endOfDay();
            assertThat(show(sub.read().value())).startsWith("(`.u.end;date[");
        }
    }

    @Test
    void shouldCloseALoginItRefusesWithoutAnAnswer() throws Exception {
        final Path users = Files.writeString(dir.resolve("users"), "alice:pw\n");
        start(new KdbSettings(0, users, AccessSettings.DEFAULT));
        assertThatThrownBy(() -> KdbTestClient.connect(server.kdbPort(), "alice:wrong")).hasMessageContaining("access");
        try (KdbTestClient alice = KdbTestClient.connect(server.kdbPort(), "alice:pw")) {
            assertThat(show(alice.call(call(".u.upd", sym("trade"), list(sym("IBM"), KdbObjects.f(1.5), KdbObjects.j(10),
                KdbObjects.c('N')))).value())).isEqualTo("::");
            alice.send(KdbDescriptor.ASYNC, true, call(".u.upd", sym("trade"), list(sym("IBM"), KdbObjects.f(1.5))));
            assertThat(alice.closedByServer()).as("a refused async update closes the connection").isTrue();
        }
        assertThat(server.status().journalSequence()).isEqualTo(1);
        assertThat(server.status().errors()).containsEntry("wrong-columns", 1L);
    }
}
