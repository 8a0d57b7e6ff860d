package io.jtick.soak;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.jtick.soak.ProcessStack.await;
import static io.jtick.soak.ProcessStack.number;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tickerplant that survives the loss of its machine: three tp-service nodes on Aeron Cluster, an RDB
 * and feed-sim's numbered feed (100,000 rows/s), each its own process on loopback, the RDB and the feed
 * given every node. Under the feed, for about three minutes: {@code kill -9} of the leader three times
 * (each restarted and caught up), {@code kill -9} of a follower started again at once (its Aeron mark
 * files still fresh), a follower frozen with SIGSTOP for 10 s, the leader frozen for 5 s
 * (five times the election timeout; after SIGCONT it must say it follows the new leader). At the end every
 * update the feed had acknowledged is in every node's journal exactly once, the three journals hold the
 * same entries in the same order with no sequence issued twice, and the RDB holds every row the feed
 * generated exactly once and in order. Prints each failover's times (new leader, feed acknowledged
 * again, RDB live again) and their medians. Logs stay under {@code soak/target/ClusterFaultIT-<time>/log}.
 */
@Tag("slow")
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(ignoreThreads = "HttpClient-\\d+-.*", ignoreFiles = {"anon_inode:\\[eventpoll\\]", "anon_inode:\\[eventfd\\]"})
class ClusterFaultIT {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Duration WAIT = Duration.ofMinutes(10);
    private static final int NODES = 3;
    private static final String FEED = "{\"table\":\"trade\",\"r\":100,\"u\":1,\"t\":1,\"syms\":100,\"rowIds\":true}";

    /** Under target/: the services' logs stay there when the test fails (the data goes either way). */
    private final Path dir = REPO.resolve("soak/target/ClusterFaultIT-" + System.currentTimeMillis());

    @AfterEach
    void cleanUp() throws Exception {
        for (int k = 0; k < NODES; k++) {
            delete(dir.resolve("tp-" + k));
        }
        delete(dir.resolve("runs"));
    }

    @Test
    void shouldKeepEveryAcknowledgedUpdateOnEveryNodeExactlyOnceWhenLeadersAreKilledAndNodesFrozen() throws Exception {
        ProcessStack.build(REPO, dir.resolve("log/build.log"));
        try (ProcessStack s = ProcessStack.start(REPO, dir, new ProcessStack.Options(false, "2g", "256MB", NODES))) {
            final ServiceProcess first = s.awaitLeader(WAIT);
            s.post(s.feed(), "/api/feed/start", FEED);
            awaitRdbRowsAbove(s, 300_000);
            final ClusterFaults faults = new ClusterFaults(s, WAIT);

            for (int k = 0; k < 3; k++) {
                report(faults.killLeader());
                awaitRdbRowsAbove(s, Soak.rdbRows(s) + 500_000);
            }
            final ClusterFaults.Fault restarted = report(faults.killFollower());
            assertThat(restarted.ackedMeanwhile()).as("two of three nodes commit while the third restarts").isPositive();
            awaitRdbRowsAbove(s, Soak.rdbRows(s) + 500_000);
            final ClusterFaults.Fault follower = report(faults.pauseFollower(Duration.ofSeconds(10)));
            assertThat(follower.ackedMeanwhile()).as("two of three nodes commit while the third is frozen").isPositive();
            awaitRdbRowsAbove(s, Soak.rdbRows(s) + 500_000);
            final ClusterFaults.Fault frozenLeader = report(faults.pauseLeader(Duration.ofSeconds(5)));
            assertThat(frozenLeader.newLeader()).isNotEqualTo(frozenLeader.node());
            assertThat(frozenLeader.steppedDown())
                .as("the leader frozen past the election timeout steps down and follows the leader the others agree on").isTrue();
            awaitRdbRowsAbove(s, Soak.rdbRows(s) + 500_000);

            final Map<String, Object> stopped = Soak.stopAndSettle(s);
            final long generated = number(stopped, "rowsSent");
            final long acked = number(stopped, "acknowledged");
            final RowCheck.Result rows = RowCheck.check(s, generated);
            faults.awaitSettled();
            s.closeTickerplants();
            final List<Path> roots = new ArrayList<>();
            for (int k = 0; k < NODES; k++) {
                roots.add(s.journalRoot(k));
            }
            final ClusterCheck.Result journals = ClusterCheck.check(roots, acked);
            System.out.printf("ClusterFaultIT: first leader %s; %s; %s; %s; feed %,.0f rows/s, reconnects %d, resent %,d, max behind "
                    + "schedule %d ms%n", first.name(), faults.summaryText(), rows.text(), journals.text(),
                ((Number) stopped.get("rowsPerSecond")).doubleValue(), number(stopped, "reconnects"), number(stopped, "resentUpdates"),
                number(stopped, "maxBehindScheduleMillis"));

            assertThat(rows.examples()).isEmpty();
            assertThat(rows.ok()).as(rows.text()).isTrue();
            assertThat(journals.examples()).isEmpty();
            assertThat(journals.ok()).as(journals.text()).isTrue();
            assertThat(journals.acked()).isEqualTo(number(stopped, "lastNumber"));
            assertThat(faults.faults()).hasSize(6);
        }
    }

    private static ClusterFaults.Fault report(final ClusterFaults.Fault f) {
        System.out.println("ClusterFaultIT: " + f.text());
        return f;
    }

    private static void awaitRdbRowsAbove(final ProcessStack s, final long rows) throws InterruptedException {
        await("the RDB above " + rows + " rows", WAIT, () -> Soak.rdbRows(s) > rows);
    }

    private static void delete(final Path p) throws Exception {
        if (Files.exists(p)) {
            try (Stream<Path> walk = Files.walk(p)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
