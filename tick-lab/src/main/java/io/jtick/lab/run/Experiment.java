package io.jtick.lab.run;

import io.jtick.core.tp.PublishMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The experiments of the KX white paper "kdb+tick profiling for throughput optimization" (tables
 * 1, 3, 4 and 5), AquaQ's broadcast study, KX's two machine-evaluation scripts (throughput.q and
 * io.q, from its performance tips), and custom. Each has a base for its matrix entries (a caller's
 * entry overrides only the keys it names) and a default matrix. The white paper's and AquaQ's run
 * a tickerplant lab per entry, TimeBase's a replay lab; the two scripts ({@link #seedScript()}) run
 * their own measurements ({@code machinecheck.ThroughputExperiment}, {@code machinecheck.IoExperiment}) and report
 * {@link Measure}s beside KX's.
 */
public enum Experiment {
    /** Table 1: rows per update at three rates (10,000, 30,000, 100,000 and 500,000 rows/s). */
    ROWS_PER_UPDATE("rows-per-update", 1, "rows per update",
        List.of("r", "u", "t", "rows/s"), List.of("tplog", "tppub", "tpupd", "tpflush", "rdbrecv", "rdbupd", "tpcpu", "rdbcpu")),
    /** Table 3: extra float columns per row at 10,000 and 100,000 rows/s; message bytes reported. */
    ROW_SIZE("row-size", 3, "row size",
        List.of("r", "ex", "rows/s", "bytes"), List.of("tplog", "tppub", "rdbrecv", "rdbupd", "tpcpu", "rdbcpu")),
    /** Table 4: zero latency vs timer publish vs timer log+publish (100 ms timer) at 10,000 rows/s. */
    PUBLISH_FREQUENCY("publish-frequency", 4, "publish frequency",
        List.of("mode", "timer", "rows/s"), List.of("tpupd", "tptimer", "tplog", "tppub", "rdbrecv", "rdbupd", "tpcpu", "rdbcpu")),
    /** Table 5: 1, 3, 5, 10 subscribers at r = 1, 10, 100 (one update per ms); first and last subscriber. */
    SUBSCRIBERS("subscribers", 5, "subscribers",
        List.of("r", "subs", "rows/s"), List.of("tppub", "rdbrecv", "rdbrecv_last", "rdbupd", "tpcpu", "rdbcpu")),
    /** AquaQ: serialize once vs once per subscriber, 1..100 subscribers, 50 rows/50 ms and 10,000 rows/200 ms. */
    BROADCAST("broadcast", 0, "broadcast publish (AquaQ method)",
        List.of("r", "t", "subs", "bcast", "rows/s"), List.of("tppub", "tpupd", "rdbrecv", "rdbrecv_last", "tpcpu", "rdbcpu")),
    /**
     * TimeBase's read-throughput study: experiment 1, one stream (one table, one day) to 1, 2, 5 and 10
     * consumers; experiment 2, independent streams (each consumer its share of the syms) to 4, 8 and
     * 16 consumers; a synthetic 10M-row day (plain and auto/zstd:3) and a day of real AlgoSeek quotes.
     */
    REPLAY("replay", 0, "historical replay read throughput (TimeBase method)",
        List.of("data", "enc", "cons", "streams"), List.of("rows/s", "each", "MB/s", "srvcpu", "conscpu")),
    /**
     * KX's throughput.q: a million rows inserted into an in-memory table one at a time and in bulks of
     * 10, 100, 1000 and 10000 rows (r = rows per insert), 1000 random 3-letter syms; million rows per second.
     */
    THROUGHPUT("throughput", 0, "throughput.q: inserts into an in-memory RDB table", List.of("bulk", "syms"), List.of()),
    /**
     * KX's io.q on jtick's own storage and tickerplant: column file open+close, cold and cached
     * reads, writes, small file operations, and connect, round trips and async sends to a TP.
     */
    IO("io", 0, "io.q: jtick's column files and tickerplant connections", List.of(), List.of()),
    /** Any combination; the matrix is required. */
    CUSTOM("custom", 0, "custom",
        List.of("r", "u", "t", "ex", "mode", "subs", "bcast", "rows/s", "bytes"),
        List.of("tplog", "tppub", "tpupd", "tpflush", "tptimer", "rdbrecv", "rdbrecv_last", "rdbupd", "tpcpu", "rdbcpu"));

    /** Largest bulk (rows per insert) a throughput.q entry may ask for. */
    public static final int MAX_BULK = 1_000_000;

    private final String id;
    private final int paperTable;
    private final String title;
    private final List<String> parameterColumns;
    private final List<String> figureColumns;

    Experiment(final String id, final int paperTable, final String title, final List<String> parameterColumns,
               final List<String> figureColumns) {
        this.id = id;
        this.paperTable = paperTable;
        this.title = title;
        this.parameterColumns = parameterColumns;
        this.figureColumns = figureColumns;
    }

    public String id() {
        return id;
    }

    /** The white paper's table number, 0 when the paper has none. */
    public int paperTable() {
        return paperTable;
    }

    public String title() {
        return title;
    }

    /** Parameter columns of the text table. */
    public List<String> parameterColumns() {
        return parameterColumns;
    }

    /** Figure columns of the text table (medians; the JSON and CSV have every figure). */
    public List<String> figureColumns() {
        return figureColumns;
    }

    /** True for KX's two machine-check scripts (throughput.q, io.q): their entries report {@link Measure}s, not lab figures. */
    public boolean seedScript() {
        return this == THROUGHPUT || this == IO;
    }

    /**
     * Checks one matrix entry for this experiment: the load a tickerplant lab implies
     * ({@link LabParams#validate()}), or, for throughput.q, the bulk size (r) and syms.
     */
    public LabParams check(final LabParams p) {
        switch (this) {
            case THROUGHPUT:
                if (p.r() < 1 || p.r() > MAX_BULK) {
                    throw new IllegalArgumentException("r (rows per insert) must be 1.." + MAX_BULK
                        + " [r=" + p.r() + "]");
                }
                if (p.syms() < 1 || p.syms() > 17_576) {
                    throw new IllegalArgumentException("syms must be 1..17576 (3-letter syms) [syms=" + p.syms() + "]");
                }
                return p;
            case IO:
                return p;
            default:
                return p.validate();
        }
    }

    /** What a matrix entry of this experiment starts from before its own keys. */
    public LabParams base() {
        switch (this) {
            case THROUGHPUT:
                return LabParams.of(1, 1, 1).with(java.util.Map.of("syms", 1000));
            case IO:
                return LabParams.base();
            case PUBLISH_FREQUENCY:
                return LabParams.of(1, 10, 1);
            case SUBSCRIBERS:
                return LabParams.of(1, 1, 1);
            case REPLAY:
                return LabParams.base().withReplay(1, 1, "synthetic", "plain").with(Map.of("syms", 1000));
            case BROADCAST:
                return LabParams.of(50, 1, 50);
            case ROWS_PER_UPDATE:
            case ROW_SIZE:
            case CUSTOM:
            default:
                return LabParams.base();
        }
    }

    /** The matrix run when the caller gives none (empty for custom). */
    public List<LabParams> defaultMatrix() {
        final List<LabParams> m = new ArrayList<>();
        switch (this) {
            case ROWS_PER_UPDATE:
                final int[][] rut = {{1, 10, 1}, {10, 1, 1}, {100, 1, 10}, {1, 30, 1}, {10, 3, 1}, {100, 3, 10}, {10, 10, 1},
                    {100, 1, 1}, {1000, 1, 10}, {100, 5, 1}};
                for (final int[] x : rut) {
                    m.add(LabParams.of(x[0], x[1], x[2]));
                }
                break;
            case ROW_SIZE:
                // the paper's rates: r=1 at 10,000 rows/s, r=10 and r=100 at 100,000 rows/s
                final int[][] feeds = {{1, 10, 1}, {10, 10, 1}, {100, 1, 1}};
                for (final int[] f : feeds) {
                    for (final int ex : new int[] {0, 10, 50, 150}) {
                        m.add(LabParams.of(f[0], f[1], f[2]).withEx(ex));
                    }
                }
                break;
            case PUBLISH_FREQUENCY:
                m.add(base());
                m.add(base().withMode(PublishMode.TIMER_PUBLISH, 100));
                m.add(base().withMode(PublishMode.TIMER_LOG_PUBLISH, 100));
                break;
            case SUBSCRIBERS:
                for (final int r : new int[] {1, 10, 100}) {
                    for (final int subs : new int[] {1, 3, 5, 10}) {
                        m.add(LabParams.of(r, 1, 1).withSubscribers(subs));
                    }
                }
                break;
            case BROADCAST:
                final int[][] cases = {{50, 50}, {10_000, 200}};
                for (final int[] c : cases) {
                    for (final int subs : new int[] {1, 10, 50, 100}) {
                        for (final boolean b : new boolean[] {true, false}) {
                            m.add(LabParams.of(c[0], 1, c[1]).withSubscribers(subs).withBroadcast(b));
                        }
                    }
                }
                break;
            case REPLAY:
                for (final int c : new int[] {1, 2, 5, 10}) {
                    m.add(base().withReplay(c, 1, "synthetic", "plain"));
                }
                for (final int c : new int[] {4, 8, 16}) {
                    m.add(base().withReplay(c, c, "synthetic", "plain"));
                }
                for (final int c : new int[] {1, 10}) {
                    m.add(base().withReplay(c, 1, "synthetic", "auto/zstd:3"));
                }
                for (final int c : new int[] {1, 5, 10}) {
                    m.add(base().withReplay(c, 1, "algoseek", "plain"));
                }
                break;
            case THROUGHPUT:
                for (final int bulk : new int[] {1, 10, 100, 1000, 10_000}) {
                    m.add(base().withFeed(bulk, 1, 1));
                }
                break;
            case IO:
                m.add(base());
                break;
            case CUSTOM:
            default:
                break;
        }
        return List.copyOf(m);
    }

    /** Parses an experiment id ({@code rows-per-update}) or enum name, any case. */
    public static Experiment parse(final String s) {
        if (s != null) {
            final String x = s.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (final Experiment e : values()) {
                if (e.id.equals(x)) {
                    return e;
                }
            }
        }
        throw new IllegalArgumentException("unknown experiment [experiment=" + s + ", known=" + ids() + "]");
    }

    /** {@code rows-per-update|row-size|...}. */
    public static String ids() {
        final StringBuilder sb = new StringBuilder();
        for (final Experiment e : values()) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append(e.id);
        }
        return sb.toString();
    }
}
