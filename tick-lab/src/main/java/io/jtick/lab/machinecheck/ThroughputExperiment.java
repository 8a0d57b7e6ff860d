package io.jtick.lab.machinecheck;

import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * KX's throughput.q on the RDB's insert: {@code t1:trade 0; t10:10#trade; ...} then
 * {@code do[n; trade,:tN]} timed until a million rows are in. Here a random trade table of
 * throughput.q's schema ({@code sym, time, price real, size int, stop bool, cond char, ex char};
 * {@code syms} random 3-letter syms, 1000 by default; jtick puts {@code time} first and keeps it as a
 * nanosecond timestamp where q has a 4-byte time) is cut into one UPDATE frame of {@code r} rows,
 * as a feed would send it; each insert is what the RDB does with a frame off the wire
 * ({@link UpdateDecoder#wrap} and {@link RealtimeTable#append}: copy the columns, map the frame's
 * sym codes to the RDB's ids, maintain the sym index). As throughput.q prepares space with a first
 * run, the table is sized for the million rows before the clock starts; every repeat inserts into
 * a fresh table. The figure is the median over the repeats of million rows per second.
 */
public final class ThroughputExperiment {
    /** Rows each repeat inserts (throughput.q's million). */
    public static final int ROWS = 1_000_000;
    /** Repeats timed per entry (after one untimed). */
    static final int REPEATS = 5;

    /** KX's published figures: million inserts per second by bulk size (1 = single insert), per machine. */
    public static final Map<String, double[]> KX = kx();
    /** The machine the ratio is taken against: the newest kdb+ KX published. */
    public static final String KX_REFERENCE = "12-core Mac mini, 64 GB, kdb+ 4.1 (2022)";
    private static final int[] KX_BULKS = {1, 10, 100, 1000, 10_000};

    private final int rows;
    private final int repeats;

    public ThroughputExperiment() {
        this(ROWS, REPEATS);
    }

    /** Fewer rows or repeats: tests. */
    ThroughputExperiment(final int rows, final int repeats) {
        this.rows = rows;
        this.repeats = repeats;
    }

    private static Map<String, double[]> kx() {
        final Map<String, double[]> m = new LinkedHashMap<>();
        m.put(KX_REFERENCE, new double[] {2.639, 25, 166.667, 333.333, 333.333});
        m.put("AMD Opteron, 4 GB", new double[] {0.672, 6.944, 20.408, 24.39, 25});
        m.put("AMD Turion64 laptop, 0.5 GB", new double[] {0.928, 8.065, 16.129, 16.129, 16.129});
        return m;
    }

    /** KX's figure for a bulk size on a machine, or null when KX ran no such bulk. */
    public static Double kx(final String machine, final int bulk) {
        final double[] v = KX.get(machine);
        for (int i = 0; i < KX_BULKS.length; i++) {
            if (KX_BULKS[i] == bulk && v != null) {
                return v[i];
            }
        }
        return null;
    }

    /** throughput.q's table, time and sym first as jtick requires. */
    static TableSchema schema() {
        return TableSchema.of("trade",
            new ColumnDef("price", ColumnType.FLOAT32),
            new ColumnDef("size", ColumnType.INT32),
            new ColumnDef("stop", ColumnType.BOOL),
            new ColumnDef("cond", ColumnType.CHAR),
            new ColumnDef("ex", ColumnType.CHAR));
    }

    /** KX's name of a bulk size's line. */
    public static String name(final int bulk) {
        return bulk == 1 ? "single insert" : "bulk insert " + bulk;
    }

    /** Runs one entry ({@code p.r()} rows per insert, {@code p.syms()} syms); {@code stop} ends it between repeats. */
    public RowResult run(final int index, final LabParams p, final BooleanSupplier stop, final Consumer<String> phase) {
        final long start = System.nanoTime();
        final int bulk = p.r();
        final TableSchema schema = schema();
        final ByteBuf frame = frame(schema, bulk, p.syms(), 42 + index);
        try {
            final UpdateDecoder decoder = new UpdateDecoder();
            final int inserts = Math.max(1, rows / bulk);
            final long inserted = (long) inserts * bulk;
            final double[] mrows = new double[repeats];
            final double[] cpuMrows = new double[repeats];
            final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            final boolean cpu = mx.isCurrentThreadCpuTimeSupported();
            int done = 0;
            for (int k = -1; k < repeats; k++) {
                if (stop.getAsBoolean()) {
                    break;
                }
                phase.accept(k < 0 ? "warm-up" : "measuring");
                final SymbolCatalog symbols = new SymbolCatalog();
                final RealtimeTable table = new RealtimeTable(schema, symbols, (int) inserted);
                final long c0 = cpu ? mx.getCurrentThreadCpuTime() : 0;
                final long t0 = System.nanoTime();
                for (int i = 0; i < inserts; i++) {
                    table.append(schema, decoder.wrap(frame, 0));
                }
                final long t1 = System.nanoTime();
                final long c1 = cpu ? mx.getCurrentThreadCpuTime() : 0;
                if (table.rowCount() != inserted) {
                    throw new IllegalStateException("rows lost [expected=" + inserted + ", table=" + table.rowCount() + "]");
                }
                if (k >= 0) {
                    cpuMrows[done] = cpu && c1 > c0 ? inserted / ((c1 - c0) / 1e3) : 0;
                    mrows[done++] = inserted / ((t1 - t0) / 1e3);
                }
            }
            final String status = done == repeats ? RunReport.DONE : RunReport.STOPPED;
            final List<Measure> measures = new ArrayList<>();
            if (done > 0) {
                final double median = median(Arrays.copyOf(mrows, done));
                final Measure ours = new Measure("throughput", name(bulk) + (p.syms() != 1000 ? " (" + p.syms() + " syms)" : ""),
                    "M rows/s", Math.round(median * 1000) / 1000.0, done, inserted, true, null, null, null,
                    String.format(Locale.ROOT, "%,d inserts of one %d-row UPDATE frame (%d bytes) into a table sized for %,d rows:"
                        + " decode, copy the columns, map the frame's %d sym codes to the RDB's ids, add the rows to the sym index;"
                        + " per CPU second of the inserting thread %.1f M rows (the wall-clock figure is lower when the machine is busy)",
                        inserts, bulk, frame.readableBytes(), inserted, Math.min(bulk, p.syms()),
                        median(Arrays.copyOf(cpuMrows, done))));
                measures.add(ours.withKx(p.syms() == 1000 ? kx(KX_REFERENCE, bulk) : null,
                    p.syms() == 1000 ? "KX performance tips, throughput.q, " + KX_REFERENCE : null));
            }
            return RowResult.measured(index, p, status, done == repeats ? null : "stopped on request", (System.nanoTime() - start) / 1e9,
                measures);
        } finally {
            frame.release();
        }
    }

    /**
     * throughput.q's {@code bulk#trade} as one UPDATE frame: rows of {@code getRandomTrades}
     * (random sym of {@code syms} random 3-letter syms, time of day, price under 100, size under
     * 1000, random stop, cond and ex letters); the dictionary holds the syms in first appearance.
     */
    static ByteBuf frame(final TableSchema schema, final int bulk, final int syms, final long seed) {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final byte[][] universe = symbols(syms, rnd);
        final int[] symOf = new int[bulk];
        final int[] code = new int[syms];
        Arrays.fill(code, -1);
        final List<byte[]> dict = new ArrayList<>();
        int dictBytes = 0;
        for (int r = 0; r < bulk; r++) {
            final int s = rnd.nextInt(syms);
            if (code[s] < 0) {
                code[s] = dict.size();
                dict.add(universe[s]);
                dictBytes += 1 + universe[s].length;
            }
            symOf[r] = code[s];
        }
        final ByteBuf buf = Unpooled.directBuffer(UpdateEncoder.frameLength(schema, bulk, dictBytes));
        final UpdateEncoder enc = new UpdateEncoder().wrap(buf, schema, bulk, dictBytes);
        for (final byte[] s : dict) {
            enc.addSym(s);
        }
        final long midnight = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay() * 86_400_000_000_000L;
        for (int r = 0; r < bulk; r++) {
            enc.timestamp(TableSchema.TIME, r, midnight + rnd.nextLong(86_400_000_000_000L));
            enc.sym(r, symOf[r]);
            enc.float32(2, r, (float) (rnd.nextDouble() * 100));
            enc.int32(3, r, rnd.nextInt(1000));
            enc.int8(4, r, rnd.nextBoolean() ? 1 : 0);
            enc.int8(5, r, 'A' + rnd.nextInt(26));
            enc.int8(6, r, 'A' + rnd.nextInt(10));
        }
        enc.finish();
        return buf;
    }

    /** {@code n} distinct random 3-letter syms ({@code -1000?`3}). */
    private static byte[][] symbols(final int n, final SplittableRandom rnd) {
        final java.util.Set<String> seen = new java.util.LinkedHashSet<>();
        while (seen.size() < n) {
            final char[] c = {(char) ('a' + rnd.nextInt(26)), (char) ('a' + rnd.nextInt(26)), (char) ('a' + rnd.nextInt(26))};
            seen.add(new String(c));
        }
        final byte[][] out = new byte[n][];
        int i = 0;
        for (final String s : seen) {
            out[i++] = s.getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }

    static double median(final double[] v) {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
