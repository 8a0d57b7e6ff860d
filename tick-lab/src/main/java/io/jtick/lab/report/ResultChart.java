package io.jtick.lab.report;

import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.Figure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A run's main series as an SVG line chart: one line per latency figure of the experiment (median,
 * µs, log scale) across the matrix entries, jtick solid with dots, the paper's figure dashed with
 * open squares in the same colour. Hand-written SVG 1.1, no script.
 */
public final class ResultChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;
    private static final int LEFT = 70;
    private static final int RIGHT = 190;
    private static final int TOP = 56;
    private static final int BOTTOM = 120;

    private ResultChart() {
    }

    /** The chart; a run with no rows yet gives a chart with axes and a note. */
    public static String svg(final RunReport run) {
        final Experiment e = Experiment.parse(run.experiment());
        if (e.seedScript()) {
            return MeasureTables.svg(run);
        }
        final boolean replay = e == Experiment.REPLAY;
        final List<String> series = new ArrayList<>();
        for (final String f : e.figureColumns()) {
            if (!f.endsWith("cpu") && (!replay || "rows/s".equals(f))) {
                series.add(f);
            }
        }
        final List<RowResult> rows = run.rows();
        double min = Double.MAX_VALUE;
        double max = 0;
        for (final RowResult r : rows) {
            for (final String f : series) {
                for (final Double v : new Double[] {ours(r, f), paper(r, f)}) {
                    if (v != null && v > 0) {
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                    }
                }
            }
        }
        if (max == 0) {
            min = 1;
            max = 1000;
        }
        final double lo = Math.floor(Math.log10(min));
        final double hi = Math.max(lo + 1, Math.ceil(Math.log10(max)));
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        final StringBuilder sb = new StringBuilder();
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(WIDTH).append("\" height=\"")
            .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        text(sb, WIDTH / 2.0, 22, "middle", 15, "jtick " + e.id() + " (" + run.id() + "): " + (replay ? "rows/s, all consumers"
            : "medians, us") + ", log scale");
        text(sb, WIDTH / 2.0, 40, "middle", 11, "solid = jtick (" + coresOf(run) + " cores shared), dashed = " + (replay
            ? "TimeBase (20 cores; independent streams: 64 vCPU)" : "KX white paper (kdb+ 3.1, 8 pinned CPUs)"));
        for (double d = lo; d <= hi + 1e-9; d++) {
            final double y = TOP + plotH - (d - lo) / (hi - lo) * plotH;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, y,
                LEFT + plotW, y));
            text(sb, LEFT - 8, y + 4, "end", 11, tick(Math.pow(10, d)));
        }
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n",
            LEFT, TOP, plotW, plotH));
        final int n = rows.size();
        for (int k = 0; k < n; k++) {
            final double x = x(k, n, plotW);
            final double y = TOP + plotH + 12;
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\""
                + " transform=\"rotate(-40 %.1f %.1f)\">%s</text>%n", x, y, x, y, esc(ResultTables.label(e, rows.get(k).params()))));
        }
        if (n == 0) {
            text(sb, LEFT + plotW / 2.0, TOP + plotH / 2.0, "middle", 13, "no entries measured yet");
        }
        for (int s = 0; s < series.size(); s++) {
            final String f = series.get(s);
            final String color = COLORS[s % COLORS.length];
            line(sb, rows, f, true, color, lo, hi, plotW, plotH);
            line(sb, rows, f, false, color, lo, hi, plotW, plotH);
            final double ly = TOP + 10 + s * 20;
            final int lx = LEFT + plotW + 16;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                lx, ly, lx + 22, ly, color));
            text(sb, lx + 28, ly + 4, "start", 12, f);
        }
        final double ly = TOP + 10 + series.size() * 20 + 10;
        final int lx = LEFT + plotW + 16;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"1.5\""
            + " stroke-dasharray=\"5,4\"/>%n", lx, ly, lx + 22, ly));
        text(sb, lx + 28, ly + 4, "start", 12, replay ? "TimeBase" : "paper");
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static void line(final StringBuilder sb, final List<RowResult> rows, final String figure, final boolean jtick,
                             final String color, final double lo, final double hi, final int plotW, final int plotH) {
        final StringBuilder pts = new StringBuilder();
        final StringBuilder marks = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            final Double v = jtick ? ours(rows.get(k), figure) : paper(rows.get(k), figure);
            if (v == null || v <= 0) {
                continue;
            }
            final double x = x(k, rows.size(), plotW);
            final double y = TOP + plotH - (Math.log10(v) - lo) / (hi - lo) * plotH;
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            if (jtick) {
                marks.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
                    + "<title>%s %s</title></circle>%n",
                    x, y, color, figure, ResultTables.number(v)));
            } else {
                marks.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"white\" stroke=\"%s\">"
                    + "<title>reference %s %s</title></rect>%n", x - 3, y - 3, color, figure, ResultTables.number(v)));
            }
        }
        if (pts.length() > 0) {
            sb.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"").append(jtick ? "2" : "1.5")
                .append('"').append(jtick ? "" : " stroke-dasharray=\"5,4\"").append(" points=\"").append(pts.toString().trim())
                .append("\"/>\n");
            sb.append(marks);
        }
    }

    private static Double ours(final RowResult r, final String figure) {
        if (r.replay() != null) {
            return "rows/s".equals(figure) ? r.replay().rowsPerSecond() : null;
        }
        final Figure f = r.figures().get(figure);
        return f == null ? null : f.median();
    }

    private static Double paper(final RowResult r, final String figure) {
        if (r.replay() != null) {
            return "rows/s".equals(figure) ? r.replay().timebase() : null;
        }
        switch (figure) {
            case "tptimer":
                return r.paper().get("tpflush");
            case "tpflush":
                return null;
            case "rdbrecv":
                return r.paper().containsKey("rdbrecv") ? r.paper().get("rdbrecv") : r.paper().get("rdbrecv_first");
            default:
                return r.paper().get(figure);
        }
    }

    private static double x(final int k, final int n, final int plotW) {
        return n <= 1 ? LEFT + plotW / 2.0 : LEFT + 20 + k * (plotW - 40.0) / (n - 1);
    }

    private static String coresOf(final RunReport run) {
        return run.environment() == null ? "?" : Integer.toString(run.environment().cores());
    }

    private static String tick(final double v) {
        return v >= 1 ? String.format(Locale.ROOT, "%,.0f", v)
            : new java.math.BigDecimal(String.format(Locale.ROOT, "%.2g", v)).stripTrailingZeros().toPlainString();
    }

    static void text(final StringBuilder sb, final double x, final double y, final String anchor, final int size, final String s) {
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n", x, y, anchor,
            size, esc(s)));
    }

    static String esc(final String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
