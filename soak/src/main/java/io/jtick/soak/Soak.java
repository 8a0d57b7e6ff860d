package io.jtick.soak;

import io.jtick.core.hdb.store.PartitionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./jtick soak}: a numbered synthetic feed at a fixed rate into the tickerplant and an RDB,
 * each its own process, with {@code kill -9} of the TP and of the RDB in turn every {@code --kill-every}
 * seconds (each restarted at once); at the end the feed stops and every row it generated must be in
 * the RDB exactly once and in order ({@link RowCheck}). Prints what happened, the rate the feed held
 * and one JSON line; exits 1 when the check fails.
 *
 * <pre>
 * ./jtick soak --minutes 10 --rate 200000 [--kill-every 60] [--rdb-heap 10g] [--buffer 512MB] [--dir DIR] [--keep]
 * </pre>
 */
public final class Soak {
    private static final Duration SETTLE = Duration.ofMinutes(10);

    private Soak() {
    }

    /** Command-line options. */
    record Options(double minutes, int rate, int killEverySeconds, String rdbHeap, String buffer, Path repo, Path dir, boolean keep,
                   int cluster, boolean killsOnly) {
        static Options parse(final String[] args) {
            double minutes = 10;
            int rate = 200_000;
            int killEvery = -1;
            int cluster = 1;
            String rdbHeap = "10g";
            String buffer = "512MB";
            Path repo = Path.of("").toAbsolutePath();
            Path dir = null;
            boolean keep = false;
            boolean killsOnly = false;
            for (int i = 0; i < args.length; i++) {
                final String a = args[i];
                if ("--keep".equals(a)) {
                    keep = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + a + "\n" + usage());
                }
                final String v = args[++i];
                switch (a) {
                    case "--minutes" -> minutes = Double.parseDouble(v);
                    case "--rate" -> rate = Integer.parseInt(v);
                    case "--kill-every" -> killEvery = Integer.parseInt(v);
                    case "--cluster" -> cluster = Integer.parseInt(v);
                    case "--faults" -> killsOnly = switch (v) {
                        case "cycle" -> false;
                        case "kill-leader" -> true;
                        default -> throw new IllegalArgumentException("--faults takes cycle or kill-leader [--faults " + v + "]\n"
                            + usage());
                    };
                    case "--rdb-heap" -> rdbHeap = v;
                    case "--buffer" -> buffer = v;
                    case "--repo" -> repo = Path.of(v).toAbsolutePath();
                    case "--dir" -> dir = Path.of(v).toAbsolutePath();
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (killEvery < 0) {
                killEvery = cluster > 1 ? 20 : 60;
            }
            if (minutes <= 0 || rate < 1 || killEvery < 5) {
                throw new IllegalArgumentException("need --minutes > 0, --rate >= 1, --kill-every >= 5\n" + usage());
            }
            if (cluster < 1 || cluster > 1 && (cluster % 2 == 0 || cluster > 9)) {
                throw new IllegalArgumentException("--cluster takes an odd number of tickerplant nodes, 3 to 9 [--cluster " + cluster
                    + "]\n" + usage());
            }
            if (dir == null) {
                dir = repo.resolve("var").resolve("soak-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            }
            return new Options(minutes, rate, killEvery, rdbHeap, buffer, repo, dir, keep, cluster, killsOnly);
        }

        static String usage() {
            return "usage: soak --minutes N (10) --rate ROWS_PER_SECOND (200000) [--cluster NODES (3, 5...)] [--faults cycle|kill-leader]"
                + " [--kill-every SECONDS (60; 20 with --cluster)] [--rdb-heap 10g] [--buffer 512MB] [--dir DIR (var/soak-<time>)] [--keep]"
                + " [--repo DIR]";
        }

        /** The feed request: updates of rate/1000 rows every millisecond (slower rates: one row every 1000/rate ms). */
        String feedRequest() {
            final int r = Math.max(1, rate / 1000);
            final int t = rate >= 1000 ? 1 : Math.max(1, 1000 / rate);
            return "{\"table\":\"trade\",\"r\":" + r + ",\"u\":1,\"t\":" + t + ",\"syms\":100,\"rowIds\":true}";
        }
    }

    public static void main(final String[] args) throws Exception {
        final Options o;
        try {
            o = Options.parse(args);
        } catch (final IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(run(o) ? 0 : 1);
    }

    static boolean run(final Options o) throws Exception {
        if (o.cluster() > 1) {
            return runCluster(o);
        }
        Files.createDirectories(o.dir());
        say("soak: %.1f min at %,d rows/s, kill -9 TP and RDB in turn every %d s; data and logs under %s", o.minutes(), o.rate(),
            o.killEverySeconds(), o.dir());
        final List<String> events = new ArrayList<>();
        final long t0 = System.nanoTime();
        try (ProcessStack s = ProcessStack.start(o.repo(), o.dir(), new ProcessStack.Options(false, o.rdbHeap(), o.buffer(), 1))) {
            s.post(s.feed(), "/api/feed/start", o.feedRequest());
            final long end = System.nanoTime() + (long) (o.minutes() * 60e9);
            long nextKill = System.nanoTime() + o.killEverySeconds() * 1_000_000_000L;
            long nextReport = System.nanoTime() + 10_000_000_000L;
            boolean tpNext = true;
            int tpKills = 0;
            int rdbKills = 0;
            while (System.nanoTime() < end) {
                final long now = System.nanoTime();
                if (now >= nextKill) {
                    final ServiceProcess victim = tpNext ? s.tp() : s.rdb();
                    final long pid = victim.pid();
                    final long k0 = System.nanoTime();
                    s.killAndRestart(victim);
                    final String e = String.format(Locale.ROOT, "t=%4.0fs kill -9 %s (pid %d), healthy again in %.1f s", (k0 - t0) / 1e9,
                        victim.name(), pid, (System.nanoTime() - k0) / 1e9);
                    events.add(e);
                    say("%s", e);
                    if (tpNext) {
                        tpKills++;
                    } else {
                        rdbKills++;
                    }
                    tpNext = !tpNext;
                    nextKill = System.nanoTime() + o.killEverySeconds() * 1_000_000_000L;
                } else if (now >= nextReport) {
                    final Map<String, Object> f = s.getObject(s.feed(), "/api/feed");
                    say("t=%4.0fs feed: %,d rows, %,.0f rows/s, behind %d ms (max %d), reconnects %d, unacknowledged %,d, resent %,d",
                        (now - t0) / 1e9, ProcessStack.number(f, "rowsSent"), ((Number) f.get("rowsPerSecond")).doubleValue(),
                        ProcessStack.number(f, "behindScheduleMillis"), ProcessStack.number(f, "maxBehindScheduleMillis"),
                        ProcessStack.number(f, "reconnects"), ProcessStack.number(f, "unackedUpdates"),
                        ProcessStack.number(f, "resentUpdates"));
                    nextReport = now + 10_000_000_000L;
                } else {
                    Thread.sleep(200);
                }
            }
            final Map<String, Object> stopped = stopAndSettle(s);
            final long generated = ProcessStack.number(stopped, "rowsSent");
            final double seconds = ProcessStack.number(stopped, "elapsedMillis") / 1000.0;
            say("feed stopped: %,d rows in %.1f s = %,.0f rows/s (target %,d), max behind schedule %d ms, reconnects %d, resent %,d",
                generated, seconds, generated / seconds, o.rate(), ProcessStack.number(stopped, "maxBehindScheduleMillis"),
                ProcessStack.number(stopped, "reconnects"), ProcessStack.number(stopped, "resentUpdates"));
            final long c0 = System.nanoTime();
            final RowCheck.Result check = RowCheck.check(s, generated);
            say("check (%.1f s): %s", (System.nanoTime() - c0) / 1e9, check.text());
            System.out.println(json(o, generated, seconds, stopped, tpKills, rdbKills, check));
            return check.ok();
        } finally {
            if (!o.keep()) {
                deleteJournalAndData(o.dir());
            }
        }
    }

    /**
     * {@code --cluster N}: N tickerplant nodes on Aeron Cluster, the RDB and the feed given every node; every
     * {@code --kill-every} seconds the next fault of the cycle: {@code kill -9} of the leader (restarted),
     * SIGSTOP of a follower for 10 s, {@code kill -9} of the leader, SIGSTOP of the leader for 5 s (it must
     * step down); with {@code --faults kill-leader} only the kills. At the end the RDB's rows are checked
     * ({@link RowCheck}), the nodes stopped and their
     * journals compared ({@link ClusterCheck}).
     */
    static boolean runCluster(final Options o) throws Exception {
        Files.createDirectories(o.dir());
        say("soak: %.1f min at %,d rows/s on a cluster of %d tickerplants; every %d s %s; data and logs under %s", o.minutes(),
            o.rate(),
            o.cluster(), o.killEverySeconds(), o.killsOnly() ? "kill -9 the leader"
                : "the next of: kill -9 the leader, SIGSTOP a follower 10 s, kill -9 the leader, SIGSTOP the leader 5 s", o.dir());
        final Duration wait = Duration.ofMinutes(10);
        final long t0 = System.nanoTime();
        boolean ok = false;
        final ProcessStack.Options stack = new ProcessStack.Options(false, o.rdbHeap(), o.buffer(), o.cluster());
        try (ProcessStack s = ProcessStack.start(o.repo(), o.dir(), stack)) {
            say("leader: %s", s.awaitLeader(wait).name());
            s.post(s.feed(), "/api/feed/start", o.feedRequest());
            final ClusterFaults faults = new ClusterFaults(s, wait);
            final long end = System.nanoTime() + (long) (o.minutes() * 60e9);
            long nextFault = System.nanoTime() + o.killEverySeconds() * 1_000_000_000L;
            long nextReport = System.nanoTime() + 10_000_000_000L;
            int step = 0;
            while (System.nanoTime() < end) {
                final long now = System.nanoTime();
                if (now >= nextFault) {
                    final ClusterFaults.Fault f = o.killsOnly() ? faults.killLeader() : switch (step++ % 4) {
                        case 0, 2 -> faults.killLeader();
                        case 1 -> faults.pauseFollower(Duration.ofSeconds(10));
                        default -> faults.pauseLeader(Duration.ofSeconds(5));
                    };
                    say("t=%4.0fs %s", (now - t0) / 1e9, f.text());
                    nextFault = System.nanoTime() + o.killEverySeconds() * 1_000_000_000L;
                } else if (now >= nextReport) {
                    final Map<String, Object> f = s.getObject(s.feed(), "/api/feed");
                    say("t=%4.0fs feed: %,d rows, %,.0f rows/s, behind %d ms (max %d), reconnects %d, unacknowledged %,d, resent %,d",
                        (now - t0) / 1e9, ProcessStack.number(f, "rowsSent"), ((Number) f.get("rowsPerSecond")).doubleValue(),
                        ProcessStack.number(f, "behindScheduleMillis"), ProcessStack.number(f, "maxBehindScheduleMillis"),
                        ProcessStack.number(f, "reconnects"), ProcessStack.number(f, "unackedUpdates"),
                        ProcessStack.number(f, "resentUpdates"));
                    nextReport = now + 10_000_000_000L;
                } else {
                    Thread.sleep(200);
                }
            }
            final Map<String, Object> stopped = stopAndSettle(s);
            final long generated = ProcessStack.number(stopped, "rowsSent");
            final long acked = ProcessStack.number(stopped, "acknowledged");
            final double seconds = ProcessStack.number(stopped, "elapsedMillis") / 1000.0;
            say("feed stopped: %,d rows in %.1f s = %,.0f rows/s (target %,d), max behind schedule %d ms, reconnects %d, resent %,d",
                generated, seconds, generated / seconds, o.rate(), ProcessStack.number(stopped, "maxBehindScheduleMillis"),
                ProcessStack.number(stopped, "reconnects"), ProcessStack.number(stopped, "resentUpdates"));
            final RowCheck.Result rows = RowCheck.check(s, generated);
            say("RDB check: %s", rows.text());
            faults.awaitSettled();
            s.closeTickerplants();
            final List<Path> roots = new ArrayList<>();
            for (int k = 0; k < o.cluster(); k++) {
                roots.add(s.journalRoot(k));
            }
            final ClusterCheck.Result journals = ClusterCheck.check(roots, acked);
            say("%s", journals.text());
            say("%s", faults.summaryText());
            final boolean steppedDown = faults.faults().stream().filter(f -> "pause-leader".equals(f.kind()))
                .allMatch(ClusterFaults.Fault::steppedDown);
            ok = rows.ok() && journals.ok() && steppedDown;
            System.out.println(clusterJson(o, generated, seconds, stopped, faults, rows, journals, steppedDown, ok));
            return ok;
        } finally {
            if (!o.keep()) {
                deleteJournalAndData(o.dir());
            }
        }
    }

    private static String clusterJson(final Options o, final long generated, final double seconds, final Map<String, Object> feed,
                                      final ClusterFaults faults, final RowCheck.Result r, final ClusterCheck.Result j,
                                      final boolean steppedDown, final boolean ok) {
        final double[] m = faults.summary();
        final java.util.function.Function<String, Long> count = kind -> faults.faults().stream().filter(f -> kind.equals(f.kind())).count();
        return String.format(Locale.ROOT, "{\"benchmark\":\"soak-cluster\",\"nodes\":%d,\"minutes\":%.1f,\"targetRowsPerSec\":%d,"
                + "\"rows\":%d,\"seconds\":%.1f,\"rowsPerSec\":%d,\"maxBehindScheduleMillis\":%d,\"leaderKills\":%d,\"leaderPauses\":%d,"
                + "\"followerPauses\":%d,\"newLeaderMedianSec\":%.2f,\"newLeaderMaxSec\":%.2f,\"ackedAgainMedianSec\":%.2f,"
                + "\"ackedAgainMaxSec\":%.2f,\"rdbLiveAgainMedianSec\":%.2f,\"rdbLiveAgainMaxSec\":%.2f,\"steppedDown\":%s,"
                + "\"feedReconnects\":%d,\"resentUpdates\":%d,\"missing\":%d,\"duplicates\":%d,\"outOfOrder\":%d,"
                + "\"exactlyOnceInOrder\":%s,\"journalsIdentical\":%s,\"reissuedSequences\":%d,\"ackedMissing\":%d,"
                + "\"ackedDuplicates\":%d,\"ok\":%s}",
            o.cluster(), o.minutes(), o.rate(), generated, seconds, Math.round(generated / seconds),
            ProcessStack.number(feed, "maxBehindScheduleMillis"), count.apply("kill-leader"), count.apply("pause-leader"),
            count.apply("pause-follower"), m[0], m[1], m[2], m[3], m[4], m[5], steppedDown, ProcessStack.number(feed, "reconnects"),
            ProcessStack.number(feed, "resentUpdates"), r.missing(), r.duplicates(), r.outOfOrder(), r.ok(), j.identical(), j.reissued(),
            j.ackedMissing(), j.ackedDuplicates(), ok);
    }

    /**
     * Stops the feed (feed-sim answers once the TP acknowledged every update it sent) and waits until the RDB
     * (and HDB) hold as many rows as it generated; the feed's final status.
     */
    static Map<String, Object> stopAndSettle(final ProcessStack s) throws Exception {
        s.post(s.feed(), "/api/feed/stop", "");
        final Map<String, Object> stopped = s.getObject(s.feed(), "/api/feed");
        final long generated = ProcessStack.number(stopped, "rowsSent");
        final long acknowledged = ProcessStack.number(stopped, "acknowledged");
        if (acknowledged != ProcessStack.number(stopped, "lastNumber")) {
            throw new IllegalStateException("the feed stopped with updates the TP did not acknowledge [lastNumber="
                + ProcessStack.number(stopped, "lastNumber") + ", acknowledged=" + acknowledged + "]");
        }
        ProcessStack.await("the RDB has every row", SETTLE, () -> rdbRows(s) + hdbRows(s) >= generated);
        return s.getObject(s.feed(), "/api/feed");
    }

    static long rdbRows(final ProcessStack s) throws Exception {
        return ProcessStack.number(s.getObject(s.rdb(), "/api/status"), "tables", "trade");
    }

    static long hdbRows(final ProcessStack s) throws Exception {
        return s.hdb() == null ? 0 : ProcessStack.number(s.getObject(s.hdb(), "/api/status"), "rows");
    }

    private static String json(final Options o, final long generated, final double seconds, final Map<String, Object> feed,
                               final int tpKills, final int rdbKills, final RowCheck.Result c) {
        return String.format(Locale.ROOT, "{\"benchmark\":\"soak\",\"minutes\":%.1f,\"targetRowsPerSec\":%d,\"rows\":%d,\"seconds\":%.1f,"
                + "\"rowsPerSec\":%d,\"maxBehindScheduleMillis\":%d,\"tpKills\":%d,\"rdbKills\":%d,\"feedReconnects\":%d,"
                + "\"resentUpdates\":%d,\"missing\":%d,\"duplicates\":%d,\"outOfOrder\":%d,\"exactlyOnceInOrder\":%s}",
            o.minutes(), o.rate(), generated, seconds, Math.round(generated / seconds),
            ProcessStack.number(feed, "maxBehindScheduleMillis"), tpKills, rdbKills, ProcessStack.number(feed, "reconnects"),
            ProcessStack.number(feed, "resentUpdates"), c.missing(), c.duplicates(), c.outOfOrder(), c.ok());
    }

    /** The soak's journal is gigabytes: it goes unless --keep; the logs stay. */
    private static void deleteJournalAndData(final Path dir) throws IOException {
        for (final String sub : List.of("journal", "hdb", "rdb-eod", "runs")) {
            PartitionStore.deleteRecursively(dir.resolve(sub));
        }
        try (var nodes = Files.list(dir)) {
            for (final Path p : nodes.filter(p -> p.getFileName().toString().matches("tp-\\d+")).toList()) {
                PartitionStore.deleteRecursively(p);
            }
        }
    }

    private static void say(final String format, final Object... args) {
        System.out.printf(Locale.ROOT, "soak: " + format + "%n", args);
    }
}
