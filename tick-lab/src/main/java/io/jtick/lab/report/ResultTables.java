package io.jtick.lab.report;

import io.jtick.lab.run.CpuUsage;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.Figure;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A run's results as a text table laid out like the white paper's (one line of medians per matrix
 * entry with the paper's figure and the ratio under it, then tails and CPU detail) and as CSV (one
 * line per entry, every figure).
 */
public final class ResultTables {
    /** Latency figures of a row, in CSV order. */
    public static final List<String> FIGURES = List.of("tplog", "tppub", "tpupd", "tpflush", "tptimer", "rdbrecv", "rdbupd",
        "rdbrecv_last", "rdbupd_last");
    private static final int PARAM_WIDTH = 8;
    private static final int FIGURE_WIDTH = 8;

    private ResultTables() {
    }

    // ------------------------------------------------------------------ text

    /** The paper-style text table. */
    public static String text(final RunReport run) {
        final Experiment e = Experiment.parse(run.experiment());
        if (e.seedScript()) {
            return MeasureTables.text(run);
        }
        if (e == Experiment.REPLAY) {
            return ReadThroughputTables.text(run);
        }
        final StringBuilder sb = new StringBuilder();
        sb.append("jtick profiling run ").append(run.id()).append(" - ").append(e.title());
        if (e.paperTable() > 0) {
            sb.append(" (KX white paper Table ").append(e.paperTable()).append(')');
        } else if (e == Experiment.BROADCAST) {
            sb.append(" (AquaQ kdb+ 3.4 broadcast study: no published figures)");
        }
        sb.append('\n');
        final long settled = run.rows().stream().filter(RowResult::settled).count();
        statusLine(sb, run);
        sb.append("; settled ").append(settled).append(" of ").append(run.rows().size());
        sb.append("; durationSeconds ").append(run.spec() == null ? "?" : run.spec().durationSeconds()).append(" per entry\n");
        if (run.reason() != null) {
            sb.append("reason: ").append(run.reason()).append('\n');
        }
        final RunReport.Environment env = run.environment();
        if (env != null) {
            sb.append("jtick: ").append(env.cores()).append(" cores shared by feed, TP and subscribers; Java ").append(env.java())
                .append("; ").append(env.os()).append("; ").append(env.transport()).append('\n');
        }
        sb.append("paper: kdb+ 3.1, 8 CPUs, feed, TP and RDB each pinned to its own CPU; medians after 1-2 minutes per test\n");
        sb.append("medians in microseconds; cpu in % of one core; ratio = jtick / paper; - = not measured or not published\n\n");

        final List<String> params = e.parameterColumns();
        final List<String> figs = e.figureColumns();
        final int[] pw = new int[params.size()];
        int paramsWidth = 0;
        for (int i = 0; i < pw.length; i++) {
            pw[i] = Math.max(PARAM_WIDTH, params.get(i).length() + 1);
            for (final RowResult r : run.rows()) {
                pw[i] = Math.max(pw[i], param(r, params.get(i)).length() + 1);
            }
            paramsWidth += pw[i];
        }
        final int[] fw = new int[figs.size()];
        for (int i = 0; i < fw.length; i++) {
            fw[i] = Math.max(FIGURE_WIDTH, figs.get(i).length() + 1);
        }
        final StringBuilder head = new StringBuilder();
        for (int i = 0; i < pw.length; i++) {
            head.append(pad(params.get(i), pw[i]));
        }
        head.append(" |");
        for (int i = 0; i < fw.length; i++) {
            head.append(pad(figs.get(i), fw[i]));
        }
        head.append(" |").append(pad("got/s", 10)).append(pad("settled", 9)).append(pad("complete", 9)).append('\n');
        sb.append(head);
        sb.append("-".repeat(head.length() - 1)).append('\n');
        for (final RowResult r : run.rows()) {
            final StringBuilder line = new StringBuilder();
            for (int i = 0; i < pw.length; i++) {
                line.append(pad(param(r, params.get(i)), pw[i]));
            }
            line.append(" |");
            for (int i = 0; i < fw.length; i++) {
                line.append(pad(ours(r, figs.get(i)), fw[i]));
            }
            line.append(" |").append(pad(count(r.rowsPerSecond()), 10)).append(pad(r.settled() ? "yes" : "no", 9))
                .append(pad(r.complete() ? "yes" : "no", 9));
            if (!RunReport.DONE.equals(r.status())) {
                line.append("  ").append(r.status().toUpperCase(Locale.ROOT));
            }
            sb.append(line).append('\n');
            if (!r.paper().isEmpty()) {
                sb.append(pad("paper", paramsWidth)).append(" |");
                for (int i = 0; i < fw.length; i++) {
                    final Double v = r.paper().get(paperColumn(figs.get(i), r.paper()));
                    sb.append(pad(v == null ? "-" : number(v), fw[i]));
                }
                sb.append(" |\n");
                sb.append(pad("ratio", paramsWidth)).append(" |");
                for (int i = 0; i < fw.length; i++) {
                    final Double v = r.ratio().get(paperColumn(figs.get(i), r.paper()));
                    sb.append(pad(v == null ? "" : String.format(Locale.ROOT, "%.2f", v), fw[i]));
                }
                sb.append(" |\n");
            }
        }
        final boolean anyPaper = run.rows().stream().anyMatch(r -> !r.paper().isEmpty());
        if (anyPaper) {
            sb.append("\npaper rows matched:\n");
            for (final RowResult r : run.rows()) {
                if (r.paperRef() != null) {
                    sb.append("  entry ").append(r.index()).append(": ").append(r.paperRef()).append('\n');
                }
            }
        }
        if (figs.contains("tptimer")) {
            sb.append("\ntptimer is the timer's batch flush (journal in log+publish, merge, publish, socket flush): the paper's Table 4"
                + " tpflush;\nin zero-latency mode there is no timer flush (paper 0, ours -).\n");
        }
        tails(sb, run, figs);
        cpu(sb, run);
        if (env != null) {
            sb.append("\nmethod:\n  subscribers: ").append(env.subscriberModel()).append("\n  cpu: ").append(env.cpuMethod())
                .append("\n  settling: ").append(env.settleRule()).append("\n  warm-up: ").append(env.warmup())
                .append("\n  paper figures: ").append(env.paperFigures()).append('\n');
        }
        problemsAndNotes(sb, run);
        return sb.toString();
    }

    private static void tails(final StringBuilder sb, final RunReport run, final List<String> figs) {
        if (run.rows().isEmpty()) {
            return;
        }
        sb.append("\ntails, us (p99 / p99.9 / max) and values recorded:\n");
        for (final RowResult r : run.rows()) {
            sb.append("  entry ").append(r.index()).append(" (").append(label(Experiment.parse(run.experiment()), r.params()))
                .append("):");
            for (final String f : figs) {
                final Figure x = r.figures().get(f);
                if (x != null) {
                    sb.append(' ').append(f).append(' ').append(number(x.p99())).append('/').append(number(x.p999())).append('/')
                        .append(number(x.max())).append(" n=").append(x.count()).append(';');
                }
            }
            sb.append('\n');
        }
    }

    private static void cpu(final StringBuilder sb, final RunReport run) {
        if (run.rows().isEmpty()) {
            return;
        }
        sb.append("\ncpu, % of one core (timing = estimated share of it that is our timing code; wait = mean us the thread waited"
            + " for a CPU each time it got one):\n");
        for (final RowResult r : run.rows()) {
            final CpuUsage c = r.cpu();
            if (c == null) {
                continue;
            }
            sb.append(String.format(Locale.ROOT, "  entry %d: tp %.1f (timing %.2f, wait %s)  rdb first %.1f (timing %.2f, wait %s)"
                    + " last %.1f all %.1f  feed %.1f  sampler %.2f  | rows sent %d, journalled %d, received min %d max %d,"
                    + " %.0f bytes/update%n",
                r.index(), c.tp(), c.tpTiming(), waitText(c.tpCpuWait()), c.rdb(), c.rdbTiming(), waitText(c.rdbCpuWait()), c.rdbLast(),
                c.rdbAll(), c.feed(), c.sampler(), r.rowsSent(),
                r.rowsJournalled(), r.rowsReceivedMin(), r.rowsReceivedMax(), r.messageBytes()));
        }
    }

    private static String waitText(final Double micros) {
        return micros == null ? "-" : String.format(Locale.ROOT, "%.1f us", micros);
    }

    /** Which paper column sits under our figure column. */
    private static String paperColumn(final String figure, final Map<String, Double> paper) {
        switch (figure) {
            case "tptimer":
                return "tpflush";
            case "tpflush":
                return "-";
            case "rdbrecv":
                return paper.containsKey("rdbrecv") ? "rdbrecv" : "rdbrecv_first";
            default:
                return figure;
        }
    }

    private static String ours(final RowResult r, final String column) {
        switch (column) {
            case "tpcpu":
                return r.cpu() == null ? "-" : fmt1(r.cpu().tp());
            case "rdbcpu":
                return r.cpu() == null ? "-" : fmt1(r.cpu().rdb());
            default:
                final Figure f = r.figures().get(column);
                return f == null ? "-" : number(f.median());
        }
    }

    /** A parameter cell. */
    static String param(final RowResult r, final String column) {
        final LabParams p = r.params();
        switch (column) {
            case "r":
                return Integer.toString(p.r());
            case "u":
                return Integer.toString(p.u());
            case "t":
                return Integer.toString(p.t());
            case "ex":
                return Integer.toString(p.ex());
            case "mode":
                return shortMode(p.mode());
            case "timer":
                return p.publishMode() == io.jtick.core.tp.PublishMode.ZERO_LATENCY ? "-" : p.timerMillis() + "ms";
            case "subs":
                return Integer.toString(p.subscribers());
            case "bcast":
                return p.broadcast() ? "once" : "per-sub";
            case "rows/s":
                return count(p.targetRowsPerSecond());
            case "bytes":
                return r.messageBytes() > 0 ? count(r.messageBytes()) : "-";
            default:
                return "?";
        }
    }

    /** A short label of an entry's varying parameters (chart axis, tails). */
    public static String label(final Experiment e, final LabParams p) {
        switch (e) {
            case ROWS_PER_UPDATE:
                return p.r() + "/" + p.u() + "/" + p.t();
            case ROW_SIZE:
                return "r=" + p.r() + " ex=" + p.ex();
            case PUBLISH_FREQUENCY:
                return shortMode(p.mode())
                    + (p.publishMode() == io.jtick.core.tp.PublishMode.ZERO_LATENCY ? "" : " " + p.timerMillis() + "ms");
            case SUBSCRIBERS:
                return "r=" + p.r() + " subs=" + p.subscribers();
            case BROADCAST:
                return p.r() + "/" + p.t() + "ms x" + p.subscribers() + (p.broadcast() ? " once" : " per-sub");
            case THROUGHPUT:
            case IO:
                return MeasureTables.label(e, p);
            case REPLAY:
                return p.data() + " " + p.encoding() + " x" + p.subscribers() + (p.streams() > 1 ? " (" + p.streams() + " streams)" : "");
            case CUSTOM:
            default:
                return "r=" + p.r() + " u=" + p.u() + " t=" + p.t() + (p.ex() > 0 ? " ex=" + p.ex() : "")
                    + (p.publishMode() == io.jtick.core.tp.PublishMode.ZERO_LATENCY ? "" : " " + shortMode(p.mode()))
                    + (p.subscribers() > 1 ? " subs=" + p.subscribers() : "") + (p.broadcast() ? "" : " per-sub");
        }
    }

    private static String shortMode(final String mode) {
        switch (mode) {
            case "zero-latency":
                return "zero-lat";
            case "timer-publish":
                return "timer-pub";
            case "timer-log-publish":
                return "timer-log";
            default:
                return mode;
        }
    }

    /** µs values: 2 decimals under 10, 1 under 100, whole above. */
    static String number(final double v) {
        if (v < 10) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        if (v < 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String fmt1(final double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String count(final double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    /** Right-aligned in {@code width}, always at least one space before it. */
    private static String pad(final String s, final int width) {
        return s.length() >= width ? " " + s : " ".repeat(width - s.length()) + s;
    }

    // ------------------------------------------------------------------ csv

    /** Column names of {@link #csv} (a seed script's experiment has its own: {@link MeasureTables#csvHeader()}). */
    public static List<String> csvHeader() {
        final List<String> h = new ArrayList<>(List.of("run_id", "experiment", "entry", "status", "table", "r", "u", "t", "ex", "mode",
            "timer_ms", "subscribers", "broadcast", "syms", "target_rows_per_s", "rows_per_s", "message_bytes", "settled",
            "settled_after_s", "warmup_s", "measured_s", "rows_sent", "updates_sent", "rows_journalled", "rows_received_min",
            "rows_received_max", "complete", "feed_max_behind_ms", "rdb_clears"));
        for (final String f : FIGURES) {
            h.add(f + "_count");
            h.add(f + "_median_us");
            h.add(f + "_p99_us");
            h.add(f + "_p999_us");
            h.add(f + "_max_us");
        }
        h.addAll(List.of("tpcpu", "rdbcpu", "rdbcpu_last", "rdbcpu_all", "feedcpu", "samplercpu", "tpcpu_timing", "rdbcpu_timing",
            "timing_ns", "tp_cpu_wait_us", "rdb_cpu_wait_us", "paper_ref"));
        for (final String f : PaperFigures.FIGURES) {
            h.add("paper_" + f);
        }
        for (final String f : PaperFigures.FIGURES) {
            h.add("ratio_" + f);
        }
        h.add("error");
        return h;
    }

    /** One header line, then one line per entry; empty cells where a figure does not apply. */
    public static String csv(final RunReport run) {
        if (Experiment.parse(run.experiment()).seedScript()) {
            return MeasureTables.csv(run);
        }
        if (Experiment.parse(run.experiment()) == Experiment.REPLAY) {
            return ReadThroughputTables.csv(run);
        }
        final StringBuilder sb = new StringBuilder();
        sb.append(String.join(",", csvHeader())).append('\n');
        for (final RowResult r : run.rows()) {
            final List<Object> v = new ArrayList<>();
            final LabParams p = r.params();
            v.addAll(List.of(run.id(), run.experiment(), r.index(), r.status(), p.table(), p.r(), p.u(), p.t(), p.ex(), p.mode(),
                p.timerMillis(), p.subscribers(), p.broadcast(), p.syms(), r.targetRowsPerSecond(), r.rowsPerSecond(), r.messageBytes(),
                r.settled(), r.settledAfterSeconds(), r.warmupSeconds(), r.measuredSeconds(), r.rowsSent(), r.updatesSent(),
                r.rowsJournalled(), r.rowsReceivedMin(), r.rowsReceivedMax(), r.complete(), r.feedMaxBehindMillis(), r.rdbClears()));
            for (final String f : FIGURES) {
                final Figure x = r.figures().get(f);
                if (x == null) {
                    v.addAll(java.util.Arrays.asList("", "", "", "", ""));
                } else {
                    v.addAll(List.of(x.count(), x.median(), x.p99(), x.p999(), x.max()));
                }
            }
            final CpuUsage c = r.cpu();
            if (c == null) {
                v.addAll(java.util.Arrays.asList("", "", "", "", "", "", "", "", "", "", ""));
            } else {
                v.addAll(List.of(c.tp(), c.rdb(), c.rdbLast(), c.rdbAll(), c.feed(), c.sampler(), c.tpTiming(), c.rdbTiming(),
                    c.timingNanos()));
                v.add(c.tpCpuWait() == null ? "" : c.tpCpuWait());
                v.add(c.rdbCpuWait() == null ? "" : c.rdbCpuWait());
            }
            v.add(r.paperRef() == null ? "" : r.paperRef());
            for (final String f : PaperFigures.FIGURES) {
                final Double x = r.paper().get(f);
                v.add(x == null ? "" : x);
            }
            for (final String f : PaperFigures.FIGURES) {
                final Double x = r.ratio().get(f);
                v.add(x == null ? "" : x);
            }
            v.add(r.error() == null ? "" : r.error());
            csvLine(sb, v);
        }
        return sb.toString();
    }

    /**
     * The run's status and progress, "status done; 10 of 10 entries; 68.8 s" (and the entry running
     * now), without the line's end: every experiment's text starts with it.
     */
    static void statusLine(final StringBuilder sb, final RunReport run) {
        final RunReport.Progress p = run.progress();
        sb.append("status ").append(run.status());
        if (p != null) {
            sb.append("; ").append(p.rowsDone()).append(" of ").append(p.rowsTotal()).append(" entries; ")
                .append(fmt1(p.elapsedSeconds())).append(" s");
            if (p.currentRow() > 0) {
                sb.append("; running entry ").append(p.currentRow()).append(" (").append(p.currentPhase()).append(')');
            }
        }
    }

    /** The entries that failed, with their errors, and the run's notes: every experiment's text ends with them. */
    static void problemsAndNotes(final StringBuilder sb, final RunReport run) {
        boolean header = false;
        for (final RowResult r : run.rows()) {
            if (r.error() != null) {
                if (!header) {
                    sb.append("\nproblems:\n");
                    header = true;
                }
                sb.append("  entry ").append(r.index()).append(" (").append(r.status()).append("): ").append(r.error()).append('\n');
            }
        }
        if (!run.notes().isEmpty()) {
            sb.append("\nnotes:\n");
            for (final String n : run.notes()) {
                sb.append("  - ").append(n).append('\n');
            }
        }
    }

    /** One CSV line of {@code values} ({@link #cell} quotes what needs it). */
    static void csvLine(final StringBuilder sb, final List<Object> values) {
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(cell(values.get(i)));
        }
        sb.append('\n');
    }

    static String cell(final Object o) {
        final String s = String.valueOf(o);
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }
}
