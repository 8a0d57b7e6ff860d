package io.jtick.lab.run;

import java.util.List;
import java.util.Map;

/**
 * What one matrix entry measured. Figures are named as in the white paper: {@code tplog},
 * {@code tppub}, {@code tpupd}, {@code tpflush} (socket flush), {@code tptimer} (timer modes: the
 * timer's batch journal/publish/flush, the paper's Table 4 "tpflush"), {@code rdbrecv} and
 * {@code rdbupd} of the first subscriber, {@code rdbrecv_last} and {@code rdbupd_last} of the last.
 *
 * @param index               1-based position in the matrix
 * @param params              the entry
 * @param status              done, saturated, failed or stopped
 * @param error               why it failed or stopped, else null
 * @param settled             the medians settled before the maximum duration
 * @param settledAfterSeconds measuring seconds until they settled (0 when they did not)
 * @param warmupSeconds       seconds run before measuring (not in any figure)
 * @param measuredSeconds     seconds measured
 * @param rowsSent            rows the feed sent (whole entry, warm-up included)
 * @param updatesSent         updates the feed sent
 * @param rowsJournalled      rows the tickerplant accepted
 * @param rowsReceivedMin     fewest rows any subscriber received
 * @param rowsReceivedMax     most rows any subscriber received
 * @param complete            every subscriber received every row sent
 * @param targetRowsPerSecond r × u × 1000 / t
 * @param rowsPerSecond       rows the tickerplant accepted per second while measuring
 * @param messageBytes        mean bytes of one update frame as sent (header included)
 * @param feedMaxBehindMillis the feed's worst lateness against its timer schedule
 * @param rdbClears           times a subscriber dropped its tables to bound memory (outside rdbupd)
 * @param figures             latency figures, µs
 * @param cpu                 CPU use per role
 * @param paper               the paper's figures for the same parameters (paper column names), empty when none match
 * @param paperRef            which paper row matched, or null
 * @param ratio               ours / paper for each paper figure we have
 * @param windows             the settling windows
 * @param replay              the replay experiment's figures (null for the tickerplant experiments)
 * @param measures            the figures of a seed script's experiment ({@link Experiment#seedScript()}), empty otherwise
 */
public record RowResult(int index, LabParams params, String status, String error, boolean settled, double settledAfterSeconds,
                        double warmupSeconds, double measuredSeconds, long rowsSent, long updatesSent, long rowsJournalled,
                        long rowsReceivedMin, long rowsReceivedMax, boolean complete, double targetRowsPerSecond,
                        double rowsPerSecond, double messageBytes, long feedMaxBehindMillis, long rdbClears,
                        Map<String, Figure> figures, CpuUsage cpu, Map<String, Double> paper, String paperRef,
                        Map<String, Double> ratio, List<Window> windows, ReadThroughputFigures replay, List<Measure> measures) {
    /**
     * Row status besides done, failed and stopped: the tickerplant dropped a subscriber that fell
     * behind, so the entry asks for more than this machine captures; the run goes on.
     */
    public static final String SATURATED = "saturated";

    public RowResult {
        figures = figures == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(figures));
        paper = paper == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(paper));
        ratio = ratio == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(ratio));
        windows = windows == null ? List.of() : List.copyOf(windows);
        measures = measures == null ? List.of() : List.copyOf(measures);
    }

    /** A row of a tickerplant or replay lab (no seed-script measures). */
    public RowResult(final int index, final LabParams params, final String status, final String error, final boolean settled,
                     final double settledAfterSeconds, final double warmupSeconds, final double measuredSeconds, final long rowsSent,
                     final long updatesSent, final long rowsJournalled, final long rowsReceivedMin, final long rowsReceivedMax,
                     final boolean complete, final double targetRowsPerSecond, final double rowsPerSecond, final double messageBytes,
                     final long feedMaxBehindMillis, final long rdbClears, final Map<String, Figure> figures, final CpuUsage cpu,
                     final Map<String, Double> paper, final String paperRef, final Map<String, Double> ratio, final List<Window> windows,
                     final ReadThroughputFigures replay) {
        this(index, params, status, error, settled, settledAfterSeconds, warmupSeconds, measuredSeconds, rowsSent, updatesSent,
            rowsJournalled, rowsReceivedMin, rowsReceivedMax, complete, targetRowsPerSecond, rowsPerSecond, messageBytes,
            feedMaxBehindMillis, rdbClears, figures, cpu, paper, paperRef, ratio, windows, replay, List.of());
    }

    /** A row of a seed script's experiment: its measures, status and time; no tickerplant figures. */
    public static RowResult measured(final int index, final LabParams params, final String status, final String error,
                                     final double measuredSeconds, final List<Measure> measures) {
        return new RowResult(index, params, status, error, true, 0, 0, measuredSeconds, 0, 0, 0, 0, 0, RunReport.DONE.equals(status), 0,
            0, 0, 0, 0, Map.of(), null, Map.of(), null, Map.of(), List.of(), null, measures);
    }

    /** The same row with the paper's figures attached. */
    public RowResult withPaper(final Map<String, Double> paperFigures, final String ref, final Map<String, Double> ratios) {
        return new RowResult(index, params, status, error, settled, settledAfterSeconds, warmupSeconds, measuredSeconds, rowsSent,
            updatesSent, rowsJournalled, rowsReceivedMin, rowsReceivedMax, complete, targetRowsPerSecond, rowsPerSecond, messageBytes,
            feedMaxBehindMillis, rdbClears, figures, cpu, paperFigures, ref, ratios, windows, replay, measures);
    }

    /** Our value for a paper column name ({@code tpflush} is our {@code tptimer}, cpu and bytes included); null when absent. */
    public Double ours(final String paperColumn) {
        switch (paperColumn) {
            case "tpcpu":
                return cpu == null ? null : cpu.tp();
            case "rdbcpu":
                return cpu == null ? null : cpu.rdb();
            case "bytes":
                return messageBytes > 0 ? messageBytes : null;
            case "tpflush":
                return median("tptimer");
            case "rdbrecv_first":
                return median("rdbrecv");
            default:
                return median(paperColumn);
        }
    }

    private Double median(final String figure) {
        final Figure f = figures.get(figure);
        return f == null ? null : f.median();
    }

    /** A figure as rows report it: rounded to three decimals. */
    public static double round(final double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
