package io.jtick.soak;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Faults done to a tickerplant cluster under a numbered feed ({@link ProcessStack} with 3 or more TP
 * nodes), each timed: {@code kill -9} of the leader (restarted once the others lead again), a follower
 * frozen with {@code SIGSTOP} for a while, and the leader frozen for longer than the election timeout
 * (after {@code SIGCONT} it must find itself a follower of the new leader). For each loss of the leader
 * it measures, from the fault, when the running nodes agree on a new leader, when the feed's
 * acknowledged number advances again (the new leader commits and acknowledges) and when the RDB's row
 * count advances again.
 */
public final class ClusterFaults {
    private final ProcessStack s;
    private final Duration wait;
    private final List<Fault> faults = new ArrayList<>();

    /**
     * One fault and what followed it; times in seconds from the fault, -1 where not measured.
     *
     * @param kind        {@code kill-leader}, {@code kill-follower}, {@code pause-follower} or {@code pause-leader}
     * @param node        the member id it was done to
     * @param newLeader   the member elected first after the fault (a frozen leader's return may start another election)
     * @param elected     until the running nodes agree on a new leader
     * @param acking      until the feed's acknowledged number advances past where it was at that election
     * @param rdbLive     until the RDB's trade rows advance past where they were at that election
     * @param ackedMeanwhile updates acknowledged while a follower was frozen or restarting (the other two commit on)
     * @param steppedDown a frozen leader, let go, names another node as leader and says it follows
     */
    public record Fault(String kind, int node, int newLeader, double elected, double acking, double rdbLive, long ackedMeanwhile,
                        boolean steppedDown) {
        public boolean leaderLost() {
            return !kind.endsWith("-follower");
        }

        public String text() {
            return switch (kind) {
                case "pause-follower" -> String.format(Locale.ROOT, "SIGSTOP follower %d: %,d updates acknowledged while it was frozen, "
                    + "caught up after SIGCONT", node, ackedMeanwhile);
                case "kill-follower" -> String.format(Locale.ROOT, "kill -9 follower %d, started again at once: %,d updates acknowledged "
                    + "until it was healthy, caught up", node, ackedMeanwhile);
                default -> String.format(Locale.ROOT, "%s %d: node %d leads after %.2f s, the feed is acknowledged again after %.2f s, "
                    + "the RDB live again after %.2f s%s", "kill-leader".equals(kind) ? "kill -9 leader" : "SIGSTOP leader", node,
                    newLeader,
                    elected, acking, rdbLive, "pause-leader".equals(kind) ? ", stepped down after SIGCONT: " + steppedDown : "");
            };
        }
    }

    public ClusterFaults(final ProcessStack s, final Duration wait) {
        this.s = s;
        this.wait = wait;
    }

    public List<Fault> faults() {
        return List.copyOf(faults);
    }

    /** {@code kill -9} the leader; once another node leads, the feed is acknowledged and the RDB receives again, restart it. */
    public Fault killLeader() throws Exception {
        final ServiceProcess leader = s.awaitLeader(wait);
        final int id = s.tps().indexOf(leader);
        final long t0 = System.nanoTime();
        leader.kill9();
        final Elected e = awaitNewLeader("kill -9", id, leader);
        final Fault f = add(live("kill-leader", id, t0, e, false));
        leader.start().awaitHealthy(wait);
        awaitCaughtUp(leader);
        return f;
    }

    /**
     * {@code kill -9} a follower and start it again at once, as a supervisor would: it finds the mark
     * files its killed process refreshed a moment before and must still start, rejoin and catch up, while
     * the other two commit on.
     */
    public Fault killFollower() throws Exception {
        final ServiceProcess leader = s.awaitLeader(wait);
        final ServiceProcess follower = follower(leader);
        final long acked0 = acked();
        follower.kill9();
        follower.start().awaitHealthy(wait);
        final long meanwhile = acked() - acked0;
        awaitCaughtUp(follower);
        return add(new Fault("kill-follower", s.tps().indexOf(follower), s.tps().indexOf(leader), -1, -1, -1, meanwhile, false));
    }

    private ServiceProcess follower(final ServiceProcess leader) {
        ServiceProcess follower = null;
        for (final ServiceProcess tp : s.tps()) {
            if (tp != leader && tp.alive()) {
                follower = tp;
            }
        }
        if (follower == null) {
            throw new IllegalStateException("no running follower");
        }
        return follower;
    }

    /** Freezes a follower for {@code time}, then lets it go; the feed must be acknowledged meanwhile, and it must catch up. */
    public Fault pauseFollower(final Duration time) throws Exception {
        final ServiceProcess leader = s.awaitLeader(wait);
        final ServiceProcess follower = follower(leader);
        final long acked0 = acked();
        follower.pause();
        try {
            Thread.sleep(time.toMillis()); // the fault itself: the follower stays frozen this long
        } finally {
            follower.resume();
        }
        final long meanwhile = acked() - acked0;
        awaitCaughtUp(follower);
        return add(new Fault("pause-follower", s.tps().indexOf(follower), s.tps().indexOf(leader), -1, -1, -1, meanwhile, false));
    }

    /**
     * Freezes the leader for {@code time} (longer than the election timeout): the others elect a new one;
     * let go, the old leader must step down (say it follows the leader the running nodes agree on) and
     * catch up. That leader may not be the one elected during the freeze: the old leader's return can
     * start another election, which another node may win (seen on a loaded machine: node 1 elected
     * during the freeze, node 0 a second later). The feed and the RDB may stay with the frozen node until
     * it is let go (their sockets to it stay open): the times to acknowledged and live again count from
     * the freeze and the first election.
     */
    public Fault pauseLeader(final Duration time) throws Exception {
        final ServiceProcess leader = s.awaitLeader(wait);
        final int id = s.tps().indexOf(leader);
        final long t0 = System.nanoTime();
        leader.pause();
        final Elected e;
        try {
            e = awaitNewLeader("SIGSTOP", id, leader);
            final long left = time.toNanos() - (System.nanoTime() - t0);
            if (left > 0) {
                Thread.sleep(left / 1_000_000); // the fault itself: the old leader stays frozen this long
            }
        } finally {
            leader.resume();
        }
        final boolean down = awaitTrue("node " + id + " steps down after SIGCONT", () -> {
            final ServiceProcess now = s.leaderNow();
            final Map<String, Object> c = s.cluster(leader);
            return now != null && now != leader && "follower".equals(c.get("role"))
                && ProcessStack.number(c, "leaderId") == s.tps().indexOf(now);
        });
        final Fault f = add(live("pause-leader", id, t0, e, down));
        awaitCaughtUp(leader);
        return f;
    }

    /** The new leader, when the running nodes agreed on it, and the feed's and the RDB's counts then. */
    private record Elected(ServiceProcess leader, long atNanos, long acked, long rdbRows) {
    }

    private Elected awaitNewLeader(final String fault, final int id, final ServiceProcess old) throws Exception {
        final ServiceProcess[] next = new ServiceProcess[1];
        ProcessStack.await("a new leader after " + fault + " of node " + id, wait, 20, () -> {
            final ServiceProcess l = s.leaderNow();
            if (l != null && l != old) {
                next[0] = l;
                return true;
            }
            return false;
        });
        return new Elected(next[0], System.nanoTime(), acked(), Soak.rdbRows(s));
    }

    /** Waits until the feed is acknowledged and the RDB receives past where they were at the election. */
    private Fault live(final String kind, final int id, final long t0, final Elected e, final boolean steppedDown) throws Exception {
        ProcessStack.await("the feed acknowledged again after " + kind + " of node " + id, wait, 20, () -> acked() > e.acked());
        final long acking = System.nanoTime();
        ProcessStack.await("the RDB receives again after " + kind + " of node " + id, wait, 20, () -> Soak.rdbRows(s) > e.rdbRows());
        final long rdb = System.nanoTime();
        return new Fault(kind, id, s.tps().indexOf(e.leader()), (e.atNanos() - t0) / 1e9, (acking - t0) / 1e9, (rdb - t0) / 1e9, 0,
            steppedDown);
    }

    /** Waits until the node has applied what the leader had committed when it was let go or restarted. */
    private void awaitCaughtUp(final ServiceProcess node) throws Exception {
        final ServiceProcess leader = s.awaitLeader(wait);
        final long target = ProcessStack.number(s.cluster(leader), "commitPosition");
        ProcessStack.await(node.name() + " applied the log up to " + target, wait,
            () -> ProcessStack.number(s.cluster(node), "appliedPosition") >= target);
    }

    /** Waits until every running node has applied all the leader committed and the leader's commit position holds still. */
    public void awaitSettled() throws Exception {
        ProcessStack.await("every node applied the whole log", wait, () -> {
            final ServiceProcess leader = s.leaderNow();
            if (leader == null) {
                return false;
            }
            final long commit = ProcessStack.number(s.cluster(leader), "commitPosition");
            for (final ServiceProcess tp : s.tps()) {
                if (ProcessStack.number(s.cluster(tp), "appliedPosition") != commit) {
                    return false;
                }
            }
            return ProcessStack.number(s.cluster(leader), "commitPosition") == commit;
        });
    }

    private boolean awaitTrue(final String what, final ProcessStack.Check c) throws InterruptedException {
        try {
            ProcessStack.await(what, wait, c);
            return true;
        } catch (final IllegalStateException e) {
            System.out.println("cluster faults: " + e.getMessage());
            return false;
        }
    }

    private long acked() throws IOException, InterruptedException {
        return ProcessStack.number(s.getObject(s.feed(), "/api/feed"), "acknowledged");
    }

    private Fault add(final Fault f) {
        faults.add(f);
        return f;
    }

    /** Median and largest of the leader losses' times: {@code [electedMedian, electedMax, ackingMedian, ackingMax, rdbMedian, rdbMax]}. */
    public double[] summary() {
        final List<Fault> lost = faults.stream().filter(Fault::leaderLost).toList();
        return new double[] {median(lost, 0), max(lost, 0), median(lost, 1), max(lost, 1), median(lost, 2), max(lost, 2)};
    }

    public String summaryText() {
        final double[] m = summary();
        return String.format(Locale.ROOT, "failover over %d leader losses: new leader median %.2f s (max %.2f), feed acknowledged again "
            + "median %.2f s (max %.2f), RDB live again median %.2f s (max %.2f)", faults.stream().filter(Fault::leaderLost).count(),
            m[0], m[1], m[2], m[3], m[4], m[5]);
    }

    private static double value(final Fault f, final int which) {
        return which == 0 ? f.elected() : which == 1 ? f.acking() : f.rdbLive();
    }

    private static double median(final List<Fault> fs, final int which) {
        if (fs.isEmpty()) {
            return -1;
        }
        final double[] v = fs.stream().mapToDouble(f -> value(f, which)).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double max(final List<Fault> fs, final int which) {
        return fs.stream().mapToDouble(f -> value(f, which)).max().orElse(-1);
    }
}
