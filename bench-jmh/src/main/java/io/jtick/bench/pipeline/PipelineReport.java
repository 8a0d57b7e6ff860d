package io.jtick.bench.pipeline;

import io.jtick.bench.pipeline.PipelineBenchmark.Options;
import io.jtick.bench.pipeline.PipelineBenchmark.RunResult;
import io.jtick.core.query.model.Json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The text and JSON output of {@link PipelineBenchmark}: one block per run, then medians, ratios and targets. */
final class PipelineReport {
    /**
     * A jtick system, the peer it is held against, and the issues' targets for it: throughput at
     * r=100 (rows/s, end to end), and at the paced rate p50 and p99 bounds for feed → acknowledgement and
     * feed → subscriber (NaN: only "ahead of the peer"). {@code jtick-cluster3} is the replicated
     * tickerplant (three nodes), held against Kafka with three replicas.
     */
    record Pair(String ours, String peer, double minRowsPerSecond, double maxP50Micros, double maxP99Micros) {
    }

    static final List<Pair> PAIRS = List.of(new Pair("jtick", "kafka", 5_000_000, Double.NaN, Double.NaN),
        new Pair("jtick-cluster3", "kafka-rf3", 2_000_000, 200, 2_000));

    private PipelineReport() {
    }

    /**
     * Median over the repeats of one system × subscriber count × phase: throughput, feed → subscriber
     * and feed → acknowledgement percentiles (NaN when the system acknowledges nothing), microseconds,
     * and the CPU per update of the system as a whole (this JVM and its own processes).
     */
    record Summary(String phase, String system, int subscribers, int runs, boolean allOk, double rowsPerSecond, double p50,
                   double p99, double p999, double max, double ackP50, double ackP99, double ackP999, double ackMax,
                   double cpuMicrosPerUpdate) {
    }

    static String run(final RunResult res) {
        final StringBuilder sb = new StringBuilder();
        final Phase ph = res.phase();
        sb.append(String.format(Locale.ROOT, "%-10s %-9s subs=%d r=%d rate=%s", ph.name(), res.system(), res.subscribers(), ph.r(),
            ph.rate() == 0 ? "max" : ph.rate() + "/s"));
        if (res.error() != null && res.feedToSubscriber() == null) {
            return sb.append("  FAILED: ").append(res.error()).append(System.lineSeparator()).toString();
        }
        final Percentiles p = res.feedToSubscriber();
        sb.append(String.format(Locale.ROOT, "  %.3f s  %,.0f rows/s  feed->sub us p50 %.1f p99 %.1f p99.9 %.1f max %.1f"
                + "  exactlyOnceInOrder=%s%s%n", res.seconds(), res.rowsPerSecond(), p.p50() / 1e3, p.p99() / 1e3, p.p999() / 1e3,
            p.max() / 1e3, res.exactlyOnceInOrder(), res.error() == null ? "" : "  error: " + res.error()));
        final Percentiles a = res.feedToAck();
        if (a != null) {
            sb.append(String.format(Locale.ROOT, "    feed->ack us p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f n=%d%n", a.p50() / 1e3,
                a.p90() / 1e3, a.p99() / 1e3, a.p999() / 1e3, a.max() / 1e3, a.count()));
        }
        if (!res.cpuMicrosPerUpdate().isEmpty()) {
            sb.append("    cpu us/update:");
            res.cpuMicrosPerUpdate().forEach((k, v) -> sb.append(String.format(Locale.ROOT, " %s %.2f,", k, v)));
            sb.setLength(sb.length() - 1);
            sb.append(System.lineSeparator());
        }
        for (final Percentiles q : res.internals()) {
            sb.append(String.format(Locale.ROOT, "    %-18s us p50 %8.1f p90 %8.1f p99 %8.1f p99.9 %9.1f max %9.1f n=%d%n",
                q.name(), q.p50() / 1e3, q.p90() / 1e3, q.p99() / 1e3, q.p999() / 1e3, q.max() / 1e3, q.count()));
        }
        return sb.toString();
    }

    static List<Summary> summaries(final Options o, final List<RunResult> results) {
        final List<Summary> out = new ArrayList<>();
        for (final Phase ph : o.phases()) {
            for (final int subs : o.subscribers()) {
                for (final String sys : o.systems()) {
                    final List<RunResult> rs = results.stream()
                        .filter(r -> r.phase().equals(ph) && r.subscribers() == subs && r.system().equals(sys)).toList();
                    if (rs.isEmpty()) {
                        continue;
                    }
                    final List<RunResult> good = rs.stream().filter(RunResult::ok).toList();
                    final List<RunResult> acked = good.stream().filter(r -> r.feedToAck() != null).toList();
                    out.add(new Summary(ph.name(), sys, subs, rs.size(), good.size() == rs.size(),
                        median(good, RunResult::rowsPerSecond), median(good, r -> r.feedToSubscriber().p50() / 1e3),
                        median(good, r -> r.feedToSubscriber().p99() / 1e3), median(good, r -> r.feedToSubscriber().p999() / 1e3),
                        median(good, r -> r.feedToSubscriber().max() / 1e3), median(acked, r -> r.feedToAck().p50() / 1e3),
                        median(acked, r -> r.feedToAck().p99() / 1e3), median(acked, r -> r.feedToAck().p999() / 1e3),
                        median(acked, r -> r.feedToAck().max() / 1e3),
                        median(good, r -> r.cpuMicrosPerUpdate().getOrDefault("total", Double.NaN))));
                }
            }
        }
        return out;
    }

    static double median(final List<RunResult> rs, final ToDoubleFunction<RunResult> f) {
        if (rs.isEmpty()) {
            return Double.NaN;
        }
        final double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Summary find(final List<Summary> all, final String phase, final String system, final int subs) {
        for (final Summary s : all) {
            if (s.phase().equals(phase) && s.system().equals(system) && s.subscribers() == subs) {
                return s;
            }
        }
        return null;
    }

    /** The jtick system a run is compared with: its pair's when that ran ({@code kafka-rf3}: jtick-cluster3), else {@code jtick}. */
    private static Summary ours(final List<Summary> all, final Summary peer) {
        for (final Pair p : PAIRS) {
            if (p.peer().equals(peer.system())) {
                final Summary s = find(all, peer.phase(), p.ours(), peer.subscribers());
                if (s != null) {
                    return s;
                }
            }
        }
        return find(all, peer.phase(), "jtick", peer.subscribers());
    }

    /** A value in microseconds, or "-" when there is none (a system without acknowledgements). */
    private static String us(final double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String summary(final Options o, final List<RunResult> results, final String loadStart, final String loadEnd) {
        final List<Summary> all = summaries(o, results);
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n== tick path against its peers: %d core(s), load average %s at start, %s at end,"
            + " %d repeat(s), medians, sink=%s%n", Runtime.getRuntime().availableProcessors(), loadStart, loadEnd, o.repeat(),
            o.insert() ? "rdb" : "check"));
        sb.append("   feed->subscriber over every subscriber; feed->ack: jtick's FEED_ACK (paced: after every update), Kafka's"
            + " producer callback; cpu: this JVM and the system's own processes, per update\n");
        final String head = "%-14s %4s %14s %9s %9s %9s %9s | %9s %9s %9s %9s | %9s  %-4s %s%n";
        final String line = "%-14s %4d %,14.0f %9s %9s %9s %9s | %9s %9s %9s %9s | %9s  %-4s %s%n";
        for (final Phase ph : o.phases()) {
            sb.append(String.format(Locale.ROOT, "-- %s%n", ph.describe()));
            sb.append(String.format(Locale.ROOT, head, "system", "subs", "rows/s", "p50 us", "p99 us", "p99.9 us", "max us",
                "ack p50", "ack p99", "ack p99.9", "ack max", "cpu us/up", "ok", "ours/this: rows/s, p50, p99, p99.9"));
            for (final int subs : o.subscribers()) {
                for (final String sys : o.systems()) {
                    final Summary s = find(all, ph.name(), sys, subs);
                    if (s == null) {
                        continue;
                    }
                    String ratio = "";
                    final Summary j = ours(all, s);
                    if (j != null && !j.system().equals(sys)) {
                        ratio = String.format(Locale.ROOT, "%s: %.2fx, %.2fx, %.2fx, %.2fx", j.system(),
                            j.rowsPerSecond() / s.rowsPerSecond(), j.p50() / s.p50(), j.p99() / s.p99(), j.p999() / s.p999());
                    }
                    sb.append(String.format(Locale.ROOT, line, sys, subs, s.rowsPerSecond(), us(s.p50()), us(s.p99()), us(s.p999()),
                        us(s.max()), us(s.ackP50()), us(s.ackP99()), us(s.ackP999()), us(s.ackMax()),
                        Double.isNaN(s.cpuMicrosPerUpdate()) ? "-" : String.format(Locale.ROOT, "%.2f", s.cpuMicrosPerUpdate()),
                        s.allOk() ? "yes" : "NO", ratio));
                }
            }
        }
        sb.append(targets(o, all));
        sb.append(tickPathTargets(o, results, all));
        return sb.toString();
    }

    /**
     * The tick path's targets against raw Chronicle Queue, for jtick over TCP and over the unix socket: as fast as
     * possible at r=100, one subscriber at 10M rows/s or more and four at 5M or more, each in every run (the slowest run
     * shown); paced, feed → subscriber p50 at or below Chronicle's (medians of the same repeats) and p99.9 within 1 ms.
     */
    static String tickPathTargets(final Options o, final List<RunResult> results, final List<Summary> all) {
        final StringBuilder sb = new StringBuilder();
        for (final String ours : List.of("jtick", "jtick-unix")) {
            for (final Phase ph : o.phases()) {
                for (final int subs : o.subscribers()) {
                    final List<RunResult> rs = results.stream()
                        .filter(r -> r.phase().equals(ph) && r.subscribers() == subs && r.system().equals(ours) && r.ok()).toList();
                    if (rs.isEmpty()) {
                        continue;
                    }
                    if (!ph.paced() && ph.r() == 100 && (subs == 1 || subs == 4)) {
                        final double floor = subs == 1 ? 10e6 : 5e6;
                        final double slowest = rs.stream().mapToDouble(RunResult::rowsPerSecond).min().orElse(Double.NaN);
                        sb.append(String.format(Locale.ROOT, "%s >= %.0fM rows/s at r=100 in every run, %d subscriber(s): slowest of %d"
                            + " %,.0f -> %s%n", ours, floor / 1e6, subs, rs.size(), slowest, met(slowest >= floor)));
                    } else if (ph.paced()) {
                        final Summary j = find(all, ph.name(), ours, subs);
                        final Summary c = find(all, ph.name(), "chronicle", subs);
                        if (c != null) {
                            sb.append(String.format(Locale.ROOT, "%s feed->subscriber p50 <= chronicle's at %,d updates/s,"
                                + " %d subscriber(s): %.1f vs %.1f us -> %s%n", ours, ph.rate(), subs, j.p50(), c.p50(),
                                met(j.p50() <= c.p50())));
                        }
                        sb.append(String.format(Locale.ROOT, "%s feed->subscriber p99.9 <= 1000 us at %,d updates/s, %d subscriber(s):"
                            + " %.0f us -> %s%n", ours, ph.rate(), subs, j.p999(), met(j.p999() <= 1000)));
                    }
                }
            }
        }
        return sb.toString();
    }

    /** The issues' targets, each met or missed, from the medians. */
    static String targets(final Options o, final List<Summary> all) {
        final StringBuilder sb = new StringBuilder("-- targets\n");
        for (final Pair pair : PAIRS) {
            for (final Phase ph : o.phases()) {
                for (final int subs : o.subscribers()) {
                    targets(sb, pair, ph, subs, find(all, ph.name(), pair.ours(), subs), find(all, ph.name(), pair.peer(), subs));
                }
            }
        }
        return sb.toString();
    }

    private static void targets(final StringBuilder sb, final Pair pair, final Phase ph, final int subs, final Summary j,
                                final Summary k) {
        if (j == null) {
            return;
        }
        final String ours = pair.ours();
        if (Phase.THROUGHPUT.equals(ph.name())) {
            if (ph.r() == 100) {
                sb.append(String.format(Locale.ROOT, "%s >= %.0fM rows/s end to end at r=100, %d subscriber(s): %,.0f -> %s%n", ours,
                    pair.minRowsPerSecond() / 1e6, subs, j.rowsPerSecond(), met(j.rowsPerSecond() >= pair.minRowsPerSecond())));
            }
            if (k != null) {
                sb.append(String.format(Locale.ROOT, "%s ahead of %s on throughput, %d subscriber(s): %.2fx -> %s%n", ours, pair.peer(),
                    subs, j.rowsPerSecond() / k.rowsPerSecond(), met(j.rowsPerSecond() > k.rowsPerSecond())));
            }
            return;
        }
        if (!Double.isNaN(pair.maxP50Micros())) {
            bounds(sb, ours, "feed->ack", ph, subs, j.ackP50(), j.ackP99(), pair);
            bounds(sb, ours, "feed->subscriber", ph, subs, j.p50(), j.p99(), pair);
        }
        if (k != null) {
            ahead(sb, ours, pair.peer(), "feed->ack", ph, subs, new double[] {j.ackP50(), j.ackP99(), j.ackP999()},
                new double[] {k.ackP50(), k.ackP99(), k.ackP999()});
            ahead(sb, ours, pair.peer(), "feed->subscriber", ph, subs, new double[] {j.p50(), j.p99(), j.p999()},
                new double[] {k.p50(), k.p99(), k.p999()});
        }
    }

    private static void bounds(final StringBuilder sb, final String ours, final String what, final Phase ph, final int subs,
                               final double p50, final double p99, final Pair pair) {
        if (Double.isNaN(p50)) {
            return;
        }
        sb.append(String.format(Locale.ROOT, "%s %s p50 <= %.0f us and p99 <= %.0f us at %,d updates/s, %d subscriber(s): %.0f/%.0f us"
            + " -> %s%n", ours, what, pair.maxP50Micros(), pair.maxP99Micros(), ph.rate(), subs, p50, p99,
            met(p50 <= pair.maxP50Micros() && p99 <= pair.maxP99Micros())));
    }

    private static void ahead(final StringBuilder sb, final String ours, final String peer, final String what, final Phase ph,
                              final int subs, final double[] j, final double[] k) {
        if (Double.isNaN(j[0]) || Double.isNaN(k[0])) {
            return;
        }
        final boolean ahead = j[0] < k[0] && j[1] < k[1] && j[2] < k[2];
        sb.append(String.format(Locale.ROOT, "%s ahead of %s on %s p50/p99/p99.9 at %,d updates/s, %d subscriber(s):"
            + " %.0f/%.0f/%.0f vs %.0f/%.0f/%.0f us -> %s%n", ours, peer, what, ph.rate(), subs, j[0], j[1], j[2], k[0], k[1], k[2],
            met(ahead)));
    }

    private static String met(final boolean met) {
        return met ? "met" : "MISSED";
    }

    static String json(final Options o, final List<RunResult> results, final String loadStart, final String loadEnd) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("benchmark", "pipeline");
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("loadAverageStart", loadStart);
        m.put("loadAverageEnd", loadEnd);
        m.put("systems", o.systems());
        m.put("subscribers", o.subscribers());
        m.put("sink", o.insert() ? "rdb" : "check");
        m.put("syms", o.syms());
        m.put("ex", o.ex());
        m.put("repeat", o.repeat());
        final List<Object> runs = new ArrayList<>();
        for (final RunResult r : results) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("phase", r.phase().name());
            x.put("system", r.system());
            x.put("subscribers", r.subscribers());
            x.put("repeat", r.repeat());
            x.put("r", r.phase().r());
            x.put("rate", r.phase().rate());
            x.put("rows", r.phase().rows());
            x.put("warmupRows", r.phase().warmupRows());
            x.put("seconds", round(r.seconds(), 1000));
            x.put("rowsPerSec", Math.round(r.rowsPerSecond()));
            x.put("updatesPerSec", Math.round(r.rowsPerSecond() / r.phase().r()));
            x.put("exactlyOnceInOrder", r.exactlyOnceInOrder());
            x.put("orderErrors", r.orderErrors());
            final List<Object> rows = new ArrayList<>();
            for (final long n : r.subscriberRows()) {
                rows.add(n);
            }
            x.put("subscriberRows", rows);
            if (r.feedToSubscriber() != null) {
                x.put("feedToSubscriberMicros", percentiles(r.feedToSubscriber()));
            }
            x.put("feedToAckMicros", r.feedToAck() == null ? null : percentiles(r.feedToAck()));
            final Map<String, Object> internals = new LinkedHashMap<>();
            for (final Percentiles p : r.internals()) {
                internals.put(p.name(), percentiles(p));
            }
            x.put("internalsMicros", internals);
            final Map<String, Object> cpu = new LinkedHashMap<>();
            r.cpuMicrosPerUpdate().forEach((k, v) -> cpu.put(k, round(v, 100)));
            x.put("cpuMicrosPerUpdate", cpu);
            x.put("error", r.error());
            runs.add(x);
        }
        m.put("runs", runs);
        final List<Object> sums = new ArrayList<>();
        for (final Summary s : summaries(o, results)) {
            final Map<String, Object> x = new LinkedHashMap<>();
            x.put("phase", s.phase());
            x.put("system", s.system());
            x.put("subscribers", s.subscribers());
            x.put("runs", s.runs());
            x.put("allExactlyOnceInOrder", s.allOk());
            x.put("rowsPerSec", Double.isNaN(s.rowsPerSecond()) ? null : Math.round(s.rowsPerSecond()));
            x.put("p50Micros", round(s.p50(), 10));
            x.put("p99Micros", round(s.p99(), 10));
            x.put("p999Micros", round(s.p999(), 10));
            x.put("maxMicros", round(s.max(), 10));
            x.put("ackP50Micros", round(s.ackP50(), 10));
            x.put("ackP99Micros", round(s.ackP99(), 10));
            x.put("ackP999Micros", round(s.ackP999(), 10));
            x.put("ackMaxMicros", round(s.ackMax(), 10));
            x.put("cpuMicrosPerUpdate", round(s.cpuMicrosPerUpdate(), 100));
            sums.add(x);
        }
        m.put("medians", sums);
        return Json.write(m);
    }

    private static Map<String, Object> percentiles(final Percentiles p) {
        final Map<String, Object> x = new LinkedHashMap<>();
        x.put("count", p.count());
        x.put("p50", round(p.p50() / 1e3, 10));
        x.put("p90", round(p.p90() / 1e3, 10));
        x.put("p99", round(p.p99() / 1e3, 10));
        x.put("p99.9", round(p.p999() / 1e3, 10));
        x.put("max", round(p.max() / 1e3, 10));
        return x;
    }

    private static Object round(final double v, final int scale) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : Math.round(v * scale) / (double) scale;
    }
}
