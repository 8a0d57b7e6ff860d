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
    /** jtick's throughput target at r=100, rows/s. */
    static final double TARGET_ROWS_PER_SECOND = 5_000_000;

    private PipelineReport() {
    }

    /** Median over the repeats of one system × subscriber count × phase. */
    record Summary(String phase, String system, int subscribers, int runs, boolean allOk, double rowsPerSecond, double p50,
                   double p99, double p999, double max) {
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
                    out.add(new Summary(ph.name(), sys, subs, rs.size(), good.size() == rs.size(),
                        median(good, RunResult::rowsPerSecond), median(good, r -> r.feedToSubscriber().p50() / 1e3),
                        median(good, r -> r.feedToSubscriber().p99() / 1e3), median(good, r -> r.feedToSubscriber().p999() / 1e3),
                        median(good, r -> r.feedToSubscriber().max() / 1e3)));
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

    static String summary(final Options o, final List<RunResult> results, final String loadStart, final String loadEnd) {
        final List<Summary> all = summaries(o, results);
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n== tick path against its peers: %d core(s), load average %s at start, %s at end,"
            + " %d repeat(s), medians, sink=%s%n", Runtime.getRuntime().availableProcessors(), loadStart, loadEnd, o.repeat(),
            o.insert() ? "rdb" : "check"));
        for (final Phase ph : o.phases()) {
            sb.append(String.format(Locale.ROOT, "-- %s%n", ph.describe()));
            sb.append(String.format(Locale.ROOT, "%-10s %4s %14s %10s %10s %10s %10s  %-8s %s%n", "system", "subs", "rows/s",
                "p50 us", "p99 us", "p99.9 us", "max us", "ok", "jtick/this: rows/s, p50, p99, p99.9"));
            for (final int subs : o.subscribers()) {
                final Summary j = find(all, ph.name(), "jtick", subs);
                for (final String sys : o.systems()) {
                    final Summary s = find(all, ph.name(), sys, subs);
                    if (s == null) {
                        continue;
                    }
                    String ratio = "";
                    if (j != null && !"jtick".equals(sys)) {
                        ratio = String.format(Locale.ROOT, "%.2fx, %.2fx, %.2fx, %.2fx", j.rowsPerSecond() / s.rowsPerSecond(),
                            j.p50() / s.p50(), j.p99() / s.p99(), j.p999() / s.p999());
                    }
                    sb.append(String.format(Locale.ROOT, "%-10s %4d %,14.0f %10.1f %10.1f %10.1f %10.1f  %-8s %s%n", sys, subs,
                        s.rowsPerSecond(), s.p50(), s.p99(), s.p999(), s.max(), s.allOk() ? "yes" : "NO", ratio));
                }
            }
        }
        sb.append(targets(o, all));
        return sb.toString();
    }

    /** The targets, each met or missed, from the medians. */
    static String targets(final Options o, final List<Summary> all) {
        final StringBuilder sb = new StringBuilder("-- targets\n");
        for (final Phase ph : o.phases()) {
            for (final int subs : o.subscribers()) {
                final Summary j = find(all, ph.name(), "jtick", subs);
                if (j == null) {
                    continue;
                }
                if (Phase.THROUGHPUT.equals(ph.name()) && ph.r() == 100) {
                    sb.append(String.format(Locale.ROOT, "jtick >= 5M rows/s end to end at r=100, %d subscriber(s): %,.0f -> %s%n",
                        subs, j.rowsPerSecond(), j.rowsPerSecond() >= TARGET_ROWS_PER_SECOND ? "met" : "MISSED"));
                }
                final Summary k = find(all, ph.name(), "kafka", subs);
                if (k == null) {
                    continue;
                }
                if (Phase.THROUGHPUT.equals(ph.name())) {
                    sb.append(String.format(Locale.ROOT, "jtick ahead of Kafka on throughput, %d subscriber(s): %.2fx -> %s%n", subs,
                        j.rowsPerSecond() / k.rowsPerSecond(), j.rowsPerSecond() > k.rowsPerSecond() ? "met" : "MISSED"));
                } else {
                    final boolean ahead = j.p50() < k.p50() && j.p99() < k.p99() && j.p999() < k.p999();
                    sb.append(String.format(Locale.ROOT, "jtick ahead of Kafka on p50/p99/p99.9 at %,d updates/s, %d subscriber(s):"
                            + " %.0f/%.0f/%.0f vs %.0f/%.0f/%.0f us -> %s%n", ph.rate(), subs, j.p50(), j.p99(), j.p999(), k.p50(),
                        k.p99(), k.p999(), ahead ? "met" : "MISSED"));
                }
            }
        }
        return sb.toString();
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
