package io.jtick.lab.report;

import io.jtick.lab.machinecheck.IoExperiment;
import io.jtick.lab.machinecheck.ThroughputExperiment;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The results of a seed script's experiment ({@code throughput}, {@code io}) as KX's scripts print
 * them, with KX's published figure and the ratio beside each of ours (text), as CSV (one line per
 * measure) and as an SVG chart (how many times better than KX each figure is). {@link ResultTables}
 * and {@link ResultChart} hand these experiments here.
 */
final class MeasureTables {
    private MeasureTables() {
    }

    /** Every measure of the run, in entry order. */
    static List<Measure> measures(final RunReport run) {
        final List<Measure> all = new ArrayList<>();
        for (final RowResult r : run.rows()) {
            all.addAll(r.measures());
        }
        return all;
    }

    // ------------------------------------------------------------------ text

    static String text(final RunReport run) {
        final Experiment e = Experiment.parse(run.experiment());
        final StringBuilder sb = new StringBuilder();
        sb.append("jtick profiling run ").append(run.id()).append(" - ").append(e.title()).append(" (KX performance tips)\n");
        ResultTables.statusLine(sb, run);
        sb.append('\n');
        if (run.reason() != null) {
            sb.append("reason: ").append(run.reason()).append('\n');
        }
        final RunReport.Environment env = run.environment();
        if (env != null) {
            sb.append("jtick: ").append(env.cores()).append(" cores (shared with whatever else runs here); Java ").append(env.java())
                .append("; ").append(env.os()).append('\n');
        }
        if (e == Experiment.THROUGHPUT) {
            throughput(sb, run);
        } else {
            io(sb, run);
        }
        ResultTables.problemsAndNotes(sb, run);
        return sb.toString();
    }

    private static void throughput(final StringBuilder sb, final RunReport run) {
        sb.append("KX: throughput.q's published runs; ratio = jtick / KX ").append(ThroughputExperiment.KX_REFERENCE)
            .append(" (above 1: jtick inserts faster)\n\n");
        sb.append("jtick, as throughput.q prints it:\n");
        final List<Measure> ms = measures(run);
        for (final Measure m : ms) {
            sb.append(String.format(Locale.ROOT, "%s million inserts per second (%s)%n", number(m.value()), m.name()));
        }
        final List<String> machines = new ArrayList<>(ThroughputExperiment.KX.keySet());
        sb.append('\n');
        final StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-20s %10s %10s %8s", "M rows/s", "jtick", "KX 4.1",
            "ratio"));
        for (int i = 1; i < machines.size(); i++) {
            head.append(String.format(Locale.ROOT, " %14s", shortMachine(machines.get(i))));
        }
        sb.append(head).append('\n').append("-".repeat(head.length())).append('\n');
        for (final RowResult r : run.rows()) {
            for (final Measure m : r.measures()) {
                sb.append(String.format(Locale.ROOT, "%-20s %10s %10s %8s", m.name(), number(m.value()),
                    m.kx() == null ? "-" : number(m.kx()),
                    m.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", m.ratio())));
                for (int i = 1; i < machines.size(); i++) {
                    final Double kx = r.params().syms() == 1000 ? ThroughputExperiment.kx(machines.get(i), r.params().r()) : null;
                    sb.append(String.format(Locale.ROOT, " %14s", kx == null ? "-" : number(kx)));
                }
                sb.append('\n');
            }
        }
        sb.append("\nKX machines: ");
        sb.append(String.join("; ", machines)).append('\n');
        sb.append("\nmethod:\n");
        for (final Measure m : ms) {
            sb.append("  ").append(m.name()).append(": ").append(m.method()).append(String.format(Locale.ROOT,
                "; median of %d repeats%n", m.repeats()));
        }
        sb.append("  throughput.q inserts one in-memory row block into a q table (no attribute on sym, syms already interned in the"
            + " process); jtick's insert is the RDB's: it decodes a wire frame, maps its sym dictionary to the RDB's ids and keeps"
            + " the sym index (g#) up to date.\n");
    }

    private static String shortMachine(final String m) {
        if (m.startsWith("AMD Opteron")) {
            return "KX Opteron";
        }
        if (m.startsWith("AMD Turion")) {
            return "KX Turion64";
        }
        return "KX " + m.split(",")[0];
    }

    private static void io(final StringBuilder sb, final RunReport run) {
        sb.append("KX: ").append(IoExperiment.KX_SOURCE).append("; ratio = jtick / KX (for ms below 1 is faster,")
            .append(" for MB/s above 1 is faster)\n\n");
        String section = null;
        final List<Measure> ms = measures(run);
        sb.append(String.format(Locale.ROOT, "  %-30s %12s %6s %12s %8s %9s%n", "", "jtick", "", "KX", "ratio", "x better"));
        for (final Measure m : ms) {
            if (!m.section().equals(section)) {
                section = m.section();
                sb.append(section).append('\n');
            }
            final Double better = m.timesBetter();
            sb.append(String.format(Locale.ROOT, "  %-30s %12s %-6s %12s %8s %9s%n", m.name(), number(m.value()), m.unit(),
                m.kx() == null ? "-" : number(m.kx()), m.ratio() == null ? "-" : String.format(Locale.ROOT, "%.3g", m.ratio()),
                better == null ? "-" : String.format(Locale.ROOT, "%.3g", better)));
        }
        sb.append("\nmethod (what jtick times for each of io.q's lines):\n");
        for (final Measure m : ms) {
            sb.append("  ").append(m.name()).append(": ").append(m.method()).append(String.format(Locale.ROOT,
                "; median of %d repeats of %,d%n", m.repeats(), m.operations()));
        }
    }

    /** Up to 5 significant digits, no exponent. */
    static String number(final double v) {
        if (v == 0) {
            return "0";
        }
        final String s = new java.math.BigDecimal(v).round(new java.math.MathContext(5)).stripTrailingZeros().toPlainString();
        return s.length() > 12 ? String.format(Locale.ROOT, "%.4g", v) : s;
    }

    // ------------------------------------------------------------------ csv

    static List<String> csvHeader() {
        return List.of("run_id", "experiment", "entry", "status", "r", "syms", "section", "measure", "unit", "value", "repeats",
            "operations", "higher_is_better", "kx", "kx_source", "ratio", "times_better", "method", "error");
    }

    static String csv(final RunReport run) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.join(",", csvHeader())).append('\n');
        for (final RowResult r : run.rows()) {
            final List<Measure> ms = r.measures().isEmpty() ? java.util.Collections.singletonList(null) : r.measures();
            for (final Measure m : ms) {
                final List<Object> v = new ArrayList<>(List.of(run.id(), run.experiment(), r.index(), r.status(), r.params().r(),
                    r.params().syms()));
                if (m == null) {
                    v.addAll(java.util.Arrays.asList("", "", "", "", "", "", "", "", "", "", "", ""));
                } else {
                    v.addAll(java.util.Arrays.asList(m.section(), m.name(), m.unit(), m.value(), m.repeats(), m.operations(),
                        m.higherIsBetter(), m.kx() == null ? "" : m.kx(), m.kxSource() == null ? "" : m.kxSource(),
                        m.ratio() == null ? "" : m.ratio(), m.timesBetter() == null ? "" : m.timesBetter(), m.method()));
                }
                v.add(r.error() == null ? "" : r.error());
                ResultTables.csvLine(sb, v);
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ svg

    private static final int WIDTH = 960;
    private static final int ROW = 26;
    private static final int LEFT = 300;
    private static final int RIGHT = 60;
    private static final int TOP = 70;

    /** Bars of "times better than KX" on a log scale (1 = as fast as KX), one per measure with a KX figure. */
    static String svg(final RunReport run) {
        final Experiment e = Experiment.parse(run.experiment());
        final List<Measure> ms = new ArrayList<>();
        for (final Measure m : measures(run)) {
            if (m.timesBetter() != null) {
                ms.add(m);
            }
        }
        double lo = -1;
        double hi = 1;
        for (final Measure m : ms) {
            final double l = Math.log10(m.timesBetter());
            lo = Math.min(lo, Math.floor(l));
            hi = Math.max(hi, Math.ceil(l));
        }
        final int height = TOP + Math.max(1, ms.size()) * ROW + 60;
        final int plotW = WIDTH - LEFT - RIGHT;
        final StringBuilder sb = new StringBuilder();
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(WIDTH).append("\" height=\"").append(height)
            .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        ResultChart.text(sb, WIDTH / 2.0, 22, "middle", 15, "jtick " + e.id() + " (" + run.id() + "): times better than KX, log scale");
        ResultChart.text(sb, WIDTH / 2.0, 40, "middle", 11, e == Experiment.THROUGHPUT
            ? "KX: throughput.q, " + ThroughputExperiment.KX_REFERENCE + "; right of 1 = jtick inserts faster"
            : "KX: " + IoExperiment.KX_SOURCE + "; right of 1 = jtick faster (shorter time or more MB/s)");
        for (double d = lo; d <= hi + 1e-9; d++) {
            final double x = LEFT + (d - lo) / (hi - lo) * plotW;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n", x, TOP - 8, x,
                TOP + ms.size() * ROW, d == 0 ? "#333" : "#ddd"));
            ResultChart.text(sb, x, TOP - 12, "middle", 11, d == 0 ? "1 (= KX)" : (d > 0 ? "" : "1/") + (long) Math.pow(10, Math.abs(d)));
        }
        final double zero = LEFT + (0 - lo) / (hi - lo) * plotW;
        for (int i = 0; i < ms.size(); i++) {
            final Measure m = ms.get(i);
            final double y = TOP + i * ROW;
            final double x = LEFT + (Math.log10(m.timesBetter()) - lo) / (hi - lo) * plotW;
            final String color = m.timesBetter() >= 1 ? "#2ca02c" : "#d62728";
            sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s: jtick %s %s, KX %s %s</title></rect>%n", Math.min(x, zero), y + 4, Math.abs(x - zero), ROW - 8, color,
                ResultChart.esc(m.name()), number(m.value()), m.unit(), number(m.kx()), m.unit()));
            ResultChart.text(sb, LEFT - 8, y + ROW / 2.0 + 4, "end", 12, m.name() + " (" + number(m.value()) + " " + m.unit() + ")");
            ResultChart.text(sb, Math.max(x, zero) + 4, y + ROW / 2.0 + 4, "start", 11,
                String.format(Locale.ROOT, "%.3gx", m.timesBetter()));
        }
        if (ms.isEmpty()) {
            ResultChart.text(sb, WIDTH / 2.0, TOP + 20, "middle", 13, "no figures with a KX counterpart yet");
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** An entry's label: its insert (throughput) or io.q. */
    static String label(final Experiment e, final LabParams p) {
        return e == Experiment.THROUGHPUT ? ThroughputExperiment.name(p.r()) + (p.syms() != 1000 ? " syms=" + p.syms() : "") : "io.q";
    }
}
