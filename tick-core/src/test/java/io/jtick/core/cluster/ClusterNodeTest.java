package io.jtick.core.cluster;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.journal.JournalReader;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.LeaderHint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.core.testing.TestSupport.trade;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three tickerplant nodes on Aeron Cluster in this JVM, on loopback: every update a numbered feed
 * sends to the leader is in every node's journal once, under the same sequence, in the same order;
 * a follower refuses the feed naming the leader; losing the leader loses nothing acknowledged, and
 * a node that comes back replays the log into its journal.
 */
@ExtendWith(LeakCheck.class)
class ClusterNodeTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private final List<AutoCloseable> others = new ArrayList<>();

    /** One member: its tickerplant and its cluster node. */
    private record Node(int id, TickerplantServer tp, ClusterNode cluster, TickMetrics metrics) implements AutoCloseable {
        @Override
        public void close() {
            cluster.close();
            tp.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable c : others) {
            c.close();
        }
        for (final Node n : nodes) {
            n.close();
        }
    }

    private static List<ClusterSettings.Member> members(final int count) {
        return ClusterSettings.loopback(count);
    }

    /** What a test changes in every node's tickerplant settings. */
    private java.util.function.UnaryOperator<TickerplantSettings> tune = s -> s;

    private TickerplantSettings tpSettings(final ClusterSettings.Member m) {
        return tune.apply(TickerplantSettings.defaults(dir.resolve("journal-" + m.id())).withPort(m.tpPort()).withMaxFrameLength(1 << 20));
    }

    private Node start(final List<ClusterSettings.Member> members, final int id) throws IOException {
        final ClusterSettings cs = ClusterSettings.of(id, members, dir.resolve("cluster-" + id));
        final TickerplantSettings ts = tpSettings(cs.self());
        final TickMetrics metrics = new TickMetrics();
        final ClusterNode cluster = new ClusterNode(cs, ts, metrics);
        final TickerplantServer tp = new TickerplantServer(ts, SCHEMAS, NanoClock.SYSTEM, metrics).replicated(cluster).start();
        try {
            cluster.start(tp);
        } catch (final RuntimeException e) {
            tp.close();
            throw e;
        }
        final Node n = new Node(id, tp, cluster, metrics);
        synchronized (nodes) {
            nodes.add(n);
        }
        return n;
    }

    /** Starts every member at once (each waits for a leader, so they start in parallel). */
    private void startAll(final List<ClusterSettings.Member> members) throws Exception {
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (final ClusterSettings.Member m : members) {
            final Thread t = new Thread(() -> {
                try {
                    start(members, m.id());
                } catch (final Throwable e) {
                    failures.add(e);
                }
            }, "start-" + m.id());
            threads.add(t);
            t.start();
        }
        for (final Thread t : threads) {
            t.join(WAIT.toMillis());
        }
        assertThat(failures).isEmpty();
        nodes.sort(java.util.Comparator.comparingInt(Node::id));
    }

    /** The leader, once it takes feeds. */
    private Node leader() {
        await("a leader that takes feeds", WAIT, () -> nodes.stream().anyMatch(n -> n.cluster().acceptsFeeds()));
        return nodes.stream().filter(n -> n.cluster().acceptsFeeds()).findFirst().orElseThrow();
    }

    private FeedPublisher feed(final int port, final String name) throws IOException {
        final FeedPublisher f = new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", port, name)
            .withReconnect(Duration.ofMillis(20), Duration.ofMillis(200)), null);
        others.add(f);
        return f.start();
    }

    private static void send(final FeedPublisher f, final long id) {
        final ByteBuf b = f.alloc().directBuffer(256);
        trade(b, TRADE, id, 1_000_000L * id, "A");
        assertThat(f.awaitWritable(WAIT.toNanos())).isTrue();
        assertThat(f.send(b)).isTrue();
    }

    /** Every entry of a node's journal for {@code date}: sequence and the bytes of the frame. */
    private static List<String> journal(final Path root, final LocalDate date) {
        final List<String> out = new ArrayList<>();
        try (JournalReader r = JournalReader.open(root, date, 0)) {
            final ByteBuf b = Unpooled.buffer();
            try {
                long s;
                while ((s = r.next(b.clear(), Long.MAX_VALUE)) > 0) {
                    out.add(s + ":" + ByteBufUtil.hexDump(b));
                }
            } finally {
                b.release();
            }
        }
        return out;
    }

    @Test
    void shouldJournalEveryUpdateOnEveryNodeInTheSameOrderAndRefuseFeedsOnFollowers() throws Exception {
        final List<ClusterSettings.Member> members = members(3);
        startAll(members);
        final Node leader = leader();
        final Node follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();

        final FeedPublisher wrong = feed(follower.tp().port(), "wrong");
        await("the follower's refusal", WAIT, () -> wrong.errorsReceived() > 0);
        assertThat(wrong.lastError()).contains(ErrorCode.NOT_LEADER.tag());
        assertThat(LeaderHint.leaderOf(wrong.lastError())).isEqualTo(new LeaderHint.Address("127.0.0.1", leader.tp().port()));

        // a subscriber of a follower gets every update live, in order, as it commits
        final Collector live = new Collector();
        final TickClient sub = new TickClient(TickClient.Settings.of("127.0.0.1", follower.tp().port(), "replica-reader"), live,
            live::fromSequence, null, NanoClock.SYSTEM);
        others.add(sub);
        sub.start();
        await("subscribed to the follower", WAIT, sub::isSubscribed);

        final FeedPublisher f = feed(leader.tp().port(), "numbered");
        final int total = 2_000;
        for (int id = 1; id <= total; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).as("every update acknowledged").isTrue();
        await("the follower's subscriber got every update", WAIT, () -> live.rows.size() == total);
        final List<String> expectedRows = new ArrayList<>();
        for (int id = 1; id <= total; id++) {
            expectedRows.add("trade/A/" + id * 1000L);
        }
        assertThat(new ArrayList<>(live.rows)).as("every row once, in order").isEqualTo(expectedRows);
        assertThat(live.duplicates).isZero();
        for (final Node n : nodes) {
            await("node " + n.id() + " journalled everything", WAIT, () -> n.tp().status().journalSequence() == total);
            assertThat(n.cluster().status().leaderId()).isEqualTo(leader.id());
        }
        final LocalDate date = LocalDate.parse(leader.tp().status().date());
        for (final Node n : List.copyOf(nodes)) {
            n.close();
        }
        nodes.clear();
        final List<String> first = journal(dir.resolve("journal-0"), date);
        assertThat(first).hasSize(total);
        for (int k = 0; k < total; k++) {
            assertThat(first.get(k)).startsWith((k + 1) + ":");
        }
        assertThat(journal(dir.resolve("journal-1"), date)).as("node 1's journal").isEqualTo(first);
        assertThat(journal(dir.resolve("journal-2"), date)).as("node 2's journal").isEqualTo(first);
    }

    @Test
    void shouldTakeABurstInOrderOnEveryNodeWithTheFeedPacedNeverRefused() throws Exception {
        // 1,000 updates of 50 rows (~2.5 MB) as fast as the feed writes them; where the leader's log pushes back
        // (printed: it may not here), updates wait with the feed paused; none may be lost, reordered or refused
        startAll(members(3));
        final Node leader = leader();
        final Node follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final Collector live = new Collector();
        final TickClient sub = new TickClient(TickClient.Settings.of("127.0.0.1", follower.tp().port(), "replica-reader"), live,
            live::fromSequence, null, NanoClock.SYSTEM);
        others.add(sub);
        sub.start();
        await("subscribed to the follower", WAIT, sub::isSubscribed);
        final FeedPublisher f = feed(leader.tp().port(), "burst");
        final String[] syms = new String[50];
        for (int k = 0; k < syms.length; k++) {
            syms[k] = "S" + k;
        }
        final int total = 1_000;
        for (int id = 1; id <= total; id++) {
            final ByteBuf b = f.alloc().directBuffer(4096);
            trade(b, TRADE, id, 1_000_000L * id, syms);
            assertThat(f.awaitWritable(WAIT.toNanos())).isTrue();
            assertThat(f.send(b)).isTrue();
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).as("every update acknowledged").isTrue();
        assertThat(f.stats().reconnects()).as("the feed was paced, never refused").isZero();
        System.out.printf("ClusterNodeTest burst: the leader's log pushed back %d times%n",
            leader.metrics().counter("tick.tp.cluster.backpressured").get());
        await("the follower's subscriber got every row", WAIT, () -> live.rows.size() == total * syms.length);
        final List<String> expected = new ArrayList<>();
        for (int id = 1; id <= total; id++) {
            for (int r = 0; r < syms.length; r++) {
                expected.add("trade/" + syms[r] + "/" + (id * 1000L + r));
            }
        }
        assertThat(new ArrayList<>(live.rows)).as("every row once, in the order the feed sent it").isEqualTo(expected);
        for (final Node n : nodes) {
            await("node " + n.id() + " journalled everything", WAIT, () -> n.tp().status().journalSequence() == total);
        }
        final LocalDate date = LocalDate.parse(leader.tp().status().date());
        for (final Node n : List.copyOf(nodes)) {
            n.close();
        }
        nodes.clear();
        final List<String> first = journal(dir.resolve("journal-0"), date);
        assertThat(first).hasSize(total);
        assertThat(journal(dir.resolve("journal-1"), date)).isEqualTo(first);
        assertThat(journal(dir.resolve("journal-2"), date)).isEqualTo(first);
    }

    @Test
    void shouldLoseNothingAcknowledgedWhenTheLeaderGoesAndRebuildTheJournalOfANodeThatComesBackEmpty() throws Exception {
        final List<ClusterSettings.Member> members = members(3);
        startAll(members);
        final Node first = leader();
        // the feed knows every node and starts on a follower: it is sent on to the leader
        final List<LeaderHint.Address> all = new ArrayList<>();
        nodes.stream().filter(n -> n != first).forEach(n -> all.add(new LeaderHint.Address("127.0.0.1", n.tp().port())));
        all.add(new LeaderHint.Address("127.0.0.1", first.tp().port()));
        final FeedPublisher f = new FeedPublisher(FeedPublisher.Settings.of(all, "numbered")
            .withReconnect(Duration.ofMillis(20), Duration.ofMillis(200)), null);
        others.add(f);
        f.start();
        for (int id = 1; id <= 500; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        final LocalDate date = LocalDate.parse(first.tp().status().date());
        first.close();
        nodes.remove(first);

        // the same feed follows the new leader and goes on from what it acknowledges
        for (int id = 501; id <= 1_000; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        final Node second = leader();
        assertThat(second.id()).isNotEqualTo(first.id());
        for (final Node n : nodes) {
            await("node " + n.id() + " journalled everything", WAIT, () -> n.tp().status().journalSequence() == 1_000);
        }

        // the node comes back with nothing: no journal, no log; it rebuilds both from the others
        deleteRecursively(dir.resolve("journal-" + first.id()));
        deleteRecursively(dir.resolve("cluster-" + first.id()));
        final Node back = start(members, first.id());
        // started means it knows the live term's leader, not one its replay of the log named
        assertThat(back.cluster().status().leaderId()).as("the leader the returning node names once started").isEqualTo(second.id());
        await("the returning node replayed the log", WAIT, () -> back.tp().status().journalSequence() == 1_000);
        assertThat(back.cluster().status().role()).isEqualTo("follower");
        for (final Node n : List.copyOf(nodes)) {
            n.close();
        }
        nodes.clear();
        final List<String> expected = journal(dir.resolve("journal-" + second.id()), date);
        assertThat(expected).hasSize(1_000);
        for (final ClusterSettings.Member m : members) {
            assertThat(journal(dir.resolve("journal-" + m.id()), date)).as("node " + m.id() + "'s journal").isEqualTo(expected);
        }
    }

    @Test
    void shouldEndTheDayAtOneLogPositionOnEveryNodeAndRestartFromTheSnapshot() throws Exception {
        final List<ClusterSettings.Member> members = members(3);
        startAll(members);
        final Node leader = leader();
        final FeedPublisher f = feed(leader.tp().port(), "numbered");
        for (int id = 1; id <= 300; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        final LocalDate day1 = LocalDate.parse(leader.tp().status().date());
        final Node follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        assertThatThrownBy(() -> follower.tp().endOfDay()).hasMessageContaining("not-leader").hasMessageContaining("leader="
            + "127.0.0.1:" + leader.tp().port());
        leader.tp().endOfDay();
        for (final Node n : nodes) {
            await("node " + n.id() + " in the next day", WAIT, () -> LocalDate.parse(n.tp().status().date()).isAfter(day1));
        }
        // the leader asks for a snapshot after the end of day: the log's last entry is that action, and every
        // node's applied position still reaches the commit position (it counts entries of every kind)
        await("the end-of-day snapshot", WAIT, () -> leader.cluster().status().snapshots() >= 1);
        for (final Node n : nodes) {
            await("node " + n.id() + " applied the log up to the snapshot", WAIT,
                () -> n.cluster().status().appliedPosition() == leader.cluster().status().commitPosition());
        }
        final LocalDate day2 = LocalDate.parse(leader.tp().status().date());
        for (int id = 301; id <= 600; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        await("the follower journalled the second day", WAIT, () -> follower.tp().status().journalSequence() == 600);

        // the follower restarts on its own directories: from the end-of-day snapshot, then the log after it
        follower.close();
        nodes.remove(follower);
        final Node back = start(members, follower.id());
        assertThat(back.tp().status().date()).isEqualTo(day2.toString());
        await("the restarted follower is back at the end of the log", WAIT, () -> back.tp().status().journalSequence() == 600);
        for (final Node n : List.copyOf(nodes)) {
            n.close();
        }
        nodes.clear();
        for (final LocalDate d : List.of(day1, day2)) {
            final List<String> expected = journal(dir.resolve("journal-" + leader.id()), d);
            assertThat(expected).hasSize(300);
            for (final ClusterSettings.Member m : members) {
                assertThat(journal(dir.resolve("journal-" + m.id()), d)).as("node " + m.id() + " on " + d).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldJournalTheSameTimerBatchesOnEveryNodeInTimerLogPublishThroughAnEndOfDayARestartAndAModeChange() throws Exception {
        tune = s -> s.withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(20));
        final List<ClusterSettings.Member> members = members(3);
        startAll(members);
        final Node leader = leader();
        final List<Node> followers = nodes.stream().filter(n -> n != leader).toList();
        final Collector live = new Collector();
        final TickClient sub = new TickClient(TickClient.Settings.of("127.0.0.1", followers.get(0).tp().port(), "replica-reader"),
            live, live::fromSequence, null, NanoClock.SYSTEM);
        others.add(sub);
        sub.start();
        await("subscribed to a follower", WAIT, sub::isSubscribed);
        final FeedPublisher f = feed(leader.tp().port(), "ticks");
        for (int id = 1; id <= 300; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).as("acknowledged once a cluster tick journalled them").isTrue();
        final LocalDate day1 = LocalDate.parse(leader.tp().status().date());

        // end of day, and the snapshot after it (a tick first, so it holds no batch)
        leader.tp().endOfDay();
        for (final Node n : nodes) {
            await("node " + n.id() + " in the next day", WAIT, () -> LocalDate.parse(n.tp().status().date()).isAfter(day1));
        }
        await("the end-of-day snapshot", WAIT, () -> leader.cluster().status().snapshots() >= 1);
        final LocalDate day2 = LocalDate.parse(leader.tp().status().date());
        for (int id = 301; id <= 600; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();

        // a follower restarts from the snapshot and replays the log's ticks after it
        final Node restarted = followers.get(1);
        restarted.close();
        nodes.remove(restarted);
        final Node back = start(members, restarted.id());
        final long sequence = leader.tp().status().journalSequence();
        await("the restarted follower is back at the end of the log", WAIT, () -> back.tp().status().journalSequence() == sequence);

        // a mode change is decided in the log too: zero-latency from there on every node
        leader.tp().setMode(PublishMode.ZERO_LATENCY, Duration.ofMillis(20));
        for (final Node n : nodes) {
            await("node " + n.id() + " in zero-latency", WAIT, () -> PublishMode.ZERO_LATENCY.id().equals(n.tp().status().mode()));
        }
        for (int id = 601; id <= 700; id++) {
            send(f, id);
        }
        assertThat(f.awaitAcknowledged(WAIT.toNanos())).isTrue();
        await("the follower's subscriber got every row", WAIT, () -> live.rows.size() == 700);
        final List<String> expected = new ArrayList<>();
        for (int id = 1; id <= 700; id++) {
            expected.add("trade/A/" + id * 1000L);
        }
        assertThat(new ArrayList<>(live.rows)).as("every row once, in order").isEqualTo(expected);
        final long last = leader.tp().status().journalSequence();
        for (final Node n : nodes) {
            await("node " + n.id() + " journalled everything", WAIT, () -> n.tp().status().journalSequence() == last);
        }
        for (final Node n : List.copyOf(nodes)) {
            n.close();
        }
        nodes.clear();
        for (final LocalDate d : List.of(day1, day2)) {
            final List<String> journal = journal(dir.resolve("journal-" + leader.id()), d);
            assertThat(journal).as("updates merged into the ticks' batches on " + d).isNotEmpty()
                .hasSizeLessThan(d.equals(day1) ? 300 : 400);
            for (final ClusterSettings.Member m : members) {
                assertThat(journal(dir.resolve("journal-" + m.id()), d)).as("node " + m.id() + " on " + d).isEqualTo(journal);
            }
        }
    }

    @Test
    void shouldRefuseConfigurationsThatCannotMakeACluster() throws IOException {
        final List<ClusterSettings.Member> three = members(3);
        assertThatThrownBy(() -> ClusterSettings.of(0, three.subList(0, 2), dir).validate())
            .hasMessageContaining("odd number of members");
        assertThatThrownBy(() -> ClusterSettings.of(7, three, dir).validate()).hasMessageContaining("not among the cluster members");
        final ClusterSettings.Member a = three.get(0);
        assertThatThrownBy(() -> ClusterSettings.of(0, List.of(a, three.get(1), new ClusterSettings.Member(a.id(), "127.0.0.1", 1, 0,
            three.get(2).portBase())), dir).validate()).hasMessageContaining("duplicate cluster member id [id=" + a.id() + "]");
        assertThatThrownBy(() -> ClusterSettings.parseMembers("0=127.0.0.1:5010:5011")).hasMessageContaining("bad cluster member [entry=");
        assertThat(ClusterSettings.parseMembers("0=h0:5010:5011:20000, 1=h1:5010:0:20000,2=h2:5010:5011:20000"))
            .extracting(ClusterSettings.Member::host).containsExactly("h0", "h1", "h2");
    }

    private static void deleteRecursively(final Path p) throws IOException {
        if (!java.nio.file.Files.exists(p)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(p)) {
            for (final Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(q);
            }
        }
    }
}
