package io.jtick.core.client;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.LeaderHint;
import io.jtick.core.wire.LeaderHint.Address;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A feed given a TP cluster's addresses follows its leader: followers (played by {@link RefusingTickerplant}
 * on the wire contract) refuse it naming the leader, or naming none during an election, or for want
 * of a quorum; the leader is a real {@link TickerplantServer} whose journal must end up holding every
 * update exactly once.
 */
@ExtendWith(LeakCheck.class)
class FeedPublisherFailoverTest {
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

    private TickerplantServer startTp(final int port) throws IOException {
        return closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(port), SCHEMAS,
            NanoClock.SYSTEM, new TickMetrics()).start());
    }

    private FeedPublisher feed(final List<Address> addresses, final boolean numbered) {
        return closer.track(new FeedPublisher(FeedPublisher.Settings.of(addresses, "md").withNumbered(numbered)
            .withReconnect(Duration.ofMillis(20), Duration.ofMillis(200)), null));
    }

    private static void send(final FeedPublisher f, final long id) {
        final ByteBuf b = f.alloc().directBuffer(256);
        TestSupport.trade(b, TRADE, id, 1_000_000L * id, "A");
        assertThat(f.awaitWritable(WAIT.toNanos())).isTrue();
        assertThat(f.send(b)).isTrue();
    }

    /** Every row of {@code tp}'s journal today, read by a subscriber from its start. */
    private List<String> journalled(final TickerplantServer tp, final int expected) {
        final Collector c = new Collector();
        final TickClient client = closer.track(new TickClient(TickClient.Settings.of("127.0.0.1", tp.port(), "reader"), c, () -> 0L, null,
            NanoClock.SYSTEM));
        client.start();
        await("the journal read back", WAIT, () -> c.caughtUp && c.rows.size() >= expected);
        return new ArrayList<>(c.rows);
    }

    private static List<String> rows(final int from, final int to) {
        final List<String> out = new ArrayList<>();
        for (int id = from; id <= to; id++) {
            out.add("trade/A/" + id * 1000L);
        }
        return out;
    }

    @Test
    void shouldFollowTheLeaderAFollowerNamesAndJournalEveryUpdateOnceWhileTheLeaderRestarts() throws Exception {
        TickerplantServer tp = startTp(0);
        final int port = tp.port();
        final RefusingTickerplant follower = closer.track(RefusingTickerplant.follower(() -> LeaderHint.reason("127.0.0.1", port)));
        final FeedPublisher f = feed(List.of(follower.address()), true).connect(WAIT.toMillis());

        final FeedPublisher.Stats connected = f.stats();
        assertThat(connected.tp()).as("on the leader the follower named, which is not in its list").isEqualTo("127.0.0.1:" + port);
        assertThat(connected.tpChanges()).isEqualTo(1);
        assertThat(connected.lastTpChange()).isEqualTo(follower.address() + " -> 127.0.0.1:" + port + " (not-leader, leader 127.0.0.1:"
            + port + ")");
        assertThat(f.lastError()).startsWith("not-leader: ").endsWith("[leader=127.0.0.1:" + port + "]");
        assertThat(f.failure()).as("a refusal by a follower does not stop the feed").isNull();
        assertThat(follower.refusals()).isEqualTo(1);

        final int total = 20_000;
        final Thread sender = new Thread(() -> {
            for (int id = 1; id <= total; id++) {
                final ByteBuf b = f.alloc().directBuffer(256);
                TestSupport.trade(b, TRADE, id, 1_000_000L * id, "A");
                while (!f.send(b.retain())) {
                    if (f.isClosed()) {
                        break;
                    }
                }
                b.release();
            }
        }, "failover-sender");
        sender.start();
        // the leader goes away mid-stream and comes back: the feed's only address is the follower, which sends it back there
        await("half the updates journalled", WAIT, () -> f.stats().acked() >= total / 2);
        tp.close();
        closer.forget(tp);
        await("the feed went back to the follower", WAIT, () -> follower.refusals() >= 2);
        tp = startTp(port);
        sender.join(WAIT.toMillis());
        assertThat(sender.isAlive()).isFalse();
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).as("every update acknowledged").isTrue();

        assertThat(journalled(tp, total)).as("every update in the leader's journal exactly once, in order").isEqualTo(rows(1, total));
        assertThat(tp.status().journalSequence()).isEqualTo(total);
        assertThat(tp.status().numberedFeeds()).singleElement().satisfies(s -> assertThat(s.journalled()).isEqualTo(total));
        final FeedPublisher.Stats end = f.stats();
        assertThat(end.tp()).isEqualTo("127.0.0.1:" + port);
        assertThat(end.reconnects()).as("one HELLO answered by the restarted leader").isEqualTo(1);
        assertThat(end.tpChanges()).as("to the follower and back, at least once more").isGreaterThanOrEqualTo(3);
        assertThat(end.failure()).isNull();
    }

    @Test
    void shouldTryTheNextAddressWhileNoLeaderIsKnownOrANodeHasNoQuorum() throws Exception {
        final TickerplantServer tp = startTp(0);
        final RefusingTickerplant noQuorum = closer.track(RefusingTickerplant.withoutQuorum());
        final RefusingTickerplant electing = closer.track(RefusingTickerplant.follower(() -> LeaderHint.reason(null, 0)));
        final Address leader = new Address("127.0.0.1", tp.port());
        final FeedPublisher f = feed(List.of(noQuorum.address(), electing.address(), leader), true).connect(WAIT.toMillis());

        assertThat(f.stats().tp()).isEqualTo(leader.toString());
        assertThat(f.stats().tpChanges()).isEqualTo(2);
        assertThat(f.stats().lastTpChange()).isEqualTo(electing.address() + " -> " + leader + " (not-leader, leader unknown)");
        assertThat(noQuorum.refusals()).isEqualTo(1);
        assertThat(electing.refusals()).isEqualTo(1);
        for (int id = 1; id <= 100; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        assertThat(journalled(tp, 100)).isEqualTo(rows(1, 100));
        assertThat(f.errorsReceived()).isEqualTo(2);
    }

    @Test
    void shouldMoveAProtocolOneFeedThatAFollowerRefusesAtItsFirstUpdate() throws Exception {
        final TickerplantServer tp = startTp(0);
        final int port = tp.port();
        final RefusingTickerplant follower = closer.track(RefusingTickerplant.follower(() -> LeaderHint.reason("127.0.0.1", port)));
        final FeedPublisher f = feed(List.of(follower.address()), false).connect(WAIT.toMillis());
        assertThat(f.stats().tp()).as("protocol 1: nothing is answered, so it is connected to the follower").isEqualTo(
            follower.address().toString());
        send(f, 1);
        await("moved to the leader", WAIT, () -> f.stats().tpChanges() == 1 && f.isConnected());
        assertThat(f.stats().tp()).isEqualTo("127.0.0.1:" + port);
        assertThat(f.failure()).isNull();
        for (int id = 2; id <= 11; id++) {
            send(f, id);
        }
        assertThat(journalled(tp, 10)).as("the update the follower refused is lost: protocol 1 keeps nothing").isEqualTo(rows(2, 11));
    }
}
