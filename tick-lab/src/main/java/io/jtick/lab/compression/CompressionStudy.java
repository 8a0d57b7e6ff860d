package io.jtick.lab.compression;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.BlockCuts;
import io.jtick.core.hdb.write.EncodingChooser;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.storage.PageCache;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The KX compression comparison, run on one table of one partition: for every column and every
 * encoding, the compressed size as % of raw and the write time relative to plain; for every
 * encoding, the time of a fixed query set relative to plain, hot (page cache) and cold (files
 * dropped from the page cache with {@code posix_fadvise(DONTNEED)} through
 * {@code dd iflag=nocache count=0}, where the OS allows).
 *
 * <p>Method: each column's raw values are read into memory once; write time is encode + write to
 * the page cache (no fsync), best of {@code runs}. For the query set the whole table is written
 * with the encoding (the sym column stays plain: parted columns are not compressed; a transform
 * that does not apply to a type is dropped), then each query runs {@code runs} times measured
 * (median), after a JIT warm-up of ten rounds of every query on that copy (each encoding's decoders
 * are compiled before it is timed, as plain's reads are); the decoded-block
 * cache ({@link DecodedBlockCache}) is emptied before every run, so each run decodes what it reads.
 * Then the same query repeated, as a user asks it again: the cache emptied once, the query asked
 * twice untimed (a block read a second time is kept decoded), then {@code runs} timed asks with what
 * the process's cache, at its default size, kept of them (with the share of lookups that hit).
 * Every encoding's answer to each query (a sum over the same rows in the same order) must equal plain's.
 * Queries: one sym's rows, all columns; a full scan summing every numeric column; 100 syms over a
 * 10% time window, two columns; the last value of every sym (since storage format 2 every sym's
 * last row ends a block, so this is answered from the block index and decodes no block).
 */
public final class CompressionStudy {
    /** The KX study's codecs and levels, plus jtick's per-column transform choice on lz4 and zstd. */
    public static final List<String> DEFAULT_ENCODINGS = List.of("lz4", "lz4:9", "snappy", "zstd:-7", "zstd:1", "zstd:10", "zstd:22",
        "auto/lz4", "auto/zstd:1", "auto/zstd:3");

    private final int runs;
    private final boolean cold;

    /** One column × encoding. */
    public record ColumnRow(String column, String type, String encoding, long rawBytes, long storedBytes, double sizePct,
                            double writeMillis, double writeRatio) {
    }

    /**
     * One query × encoding. {@code hotCpuMillis}/{@code hotCpuRatio}: the same hot runs in the
     * querying thread's CPU time (the study runs each query on one thread), which a busy machine
     * disturbs far less than the wall-clock figures. {@code repeat*}: the query asked again, hot,
     * with the decoded blocks its earlier asks left in the process's {@link DecodedBlockCache} (what
     * a user's repeated query costs in the HDB; wall and CPU ms, ratios to plain's repeats) and the
     * share of the repeats' cache lookups that found their block ({@code repeatHitPct}; NaN for plain,
     * which has no encoded blocks).
     */
    public record QueryRow(String query, String encoding, double hotMillis, double hotRatio, Double coldMillis, Double coldRatio,
                           double hotCpuMillis, double hotCpuRatio, double repeatMillis, double repeatRatio, double repeatCpuMillis,
                           double repeatCpuRatio, double repeatHitPct) {
    }

    /** The study's tables. */
    public record Result(LocalDate date, String table, int rows, List<String> encodings, List<ColumnRow> columns,
                         List<QueryRow> queries, boolean coldMeasured, String coldMethod, String method) {
        /** Both tables as CSV, one section each. */
        public String toCsv() {
            final StringBuilder sb = new StringBuilder("column,type,encoding,raw_bytes,stored_bytes,size_pct,write_ms,write_ratio\n");
            for (final ColumnRow r : columns) {
                sb.append(r.column()).append(',').append(r.type()).append(',').append(r.encoding()).append(',').append(r.rawBytes())
                    .append(',').append(r.storedBytes()).append(',').append(fmt(r.sizePct())).append(',').append(fmt(r.writeMillis()))
                    .append(',').append(fmt(r.writeRatio())).append('\n');
            }
            sb.append("\nquery,encoding,hot_ms,hot_ratio,cold_ms,cold_ratio\n");
            for (final QueryRow q : queries) {
                sb.append(q.query()).append(',').append(q.encoding()).append(',').append(fmt(q.hotMillis())).append(',')
                    .append(fmt(q.hotRatio())).append(',').append(fmt(q.coldMillis())).append(',').append(fmt(q.coldRatio()))
                    .append('\n');
            }
            return sb.toString();
        }

        /**
         * The hot query times in the querying thread's CPU time (query, encoding, ms, ratio to plain),
         * then the repeated query's (wall ms, ratio, CPU ms, ratio, % of cache lookups that hit), as CSV.
         */
        public String cpuCsv() {
            final StringBuilder sb = new StringBuilder(
                "query,encoding,hot_cpu_ms,hot_cpu_ratio,repeat_ms,repeat_ratio,repeat_cpu_ms,repeat_cpu_ratio,repeat_hit_pct\n");
            for (final QueryRow q : queries) {
                sb.append(q.query()).append(',').append(q.encoding()).append(',').append(fmt(q.hotCpuMillis())).append(',')
                    .append(fmt(q.hotCpuRatio())).append(',').append(fmt(q.repeatMillis())).append(',').append(fmt(q.repeatRatio()))
                    .append(',').append(fmt(q.repeatCpuMillis())).append(',').append(fmt(q.repeatCpuRatio())).append(',')
                    .append(fmt(q.repeatHitPct())).append('\n');
            }
            return sb.toString();
        }

        /** The size table laid out like KX's: a row per column, a column per encoding (size % of raw). */
        public String sizeTable() {
            final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-10s", "column"));
            for (final String e : encodings) {
                sb.append(String.format(Locale.ROOT, " %20s", e));
            }
            sb.append('\n');
            String current = null;
            for (final ColumnRow r : columns) {
                if (!r.column().equals(current)) {
                    if (current != null) {
                        sb.append('\n');
                    }
                    current = r.column();
                    sb.append(String.format(Locale.ROOT, "%-10s", current));
                }
                sb.append(String.format(Locale.ROOT, " %20.1f", r.sizePct()));
            }
            return sb.append('\n').toString();
        }

        private static String fmt(final Double v) {
            return v == null || Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
        }
    }

    public CompressionStudy(final int runs, final boolean cold) {
        if (runs < 1 || runs > 100) {
            throw new IllegalArgumentException("runs must be 1..100 [runs=" + runs + "]");
        }
        this.runs = runs;
        this.cold = cold;
    }

    /** Runs the study on {@code source} with {@code encodings} (plain is added first as the baseline), writing under {@code work}. */
    public Result run(final PartitionTable source, final List<ColumnEncoding> encodings, final Path work) throws IOException {
        final List<ColumnEncoding> all = new ArrayList<>();
        all.add(ColumnEncoding.PLAIN);
        for (final ColumnEncoding e : encodings) {
            if (!all.contains(e)) {
                all.add(e);
            }
        }
        Files.createDirectories(work);
        final TableSchema schema = source.schema();
        final int rows = source.rowCount();
        final List<ColumnRow> columnRows = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            final ColumnDef def = schema.column(c);
            final byte[] raw = new byte[rows * def.type().width()];
            source.column(c).read(0, rows, raw, 0);
            double plainMillis = Double.NaN;
            for (final ColumnEncoding requested : all) {
                final ColumnEncoding wanted = requested.forType(def.type());
                double best = Double.MAX_VALUE;
                long stored = 0;
                for (int run = 0; run < runs; run++) {
                    final Path file = work.resolve("col-" + def.name() + "-" + run);
                    Files.deleteIfExists(file);
                    final long t0 = System.nanoTime();
                    final ColumnEncoding e = wanted.isAuto() ? EncodingChooser.choose(wanted, def.type(), raw,
                        BlockCuts.blockBytes(wanted, source.meta().blockBytes()))
                        : wanted;
                    stored = writeColumn(file, def.type(), e, raw, source.syms(), source.meta().blockBytes());
                    best = Math.min(best, (System.nanoTime() - t0) / 1e6);
                    Files.delete(file);
                }
                if (requested == ColumnEncoding.PLAIN) {
                    plainMillis = best;
                }
                final long rawBytes = raw.length;
                columnRows.add(new ColumnRow(def.name(), def.type().typeName(), requested.toString(), rawBytes, stored,
                    rawBytes == 0 ? 100 : 100.0 * stored / rawBytes, best, best / plainMillis));
            }
        }
        final List<QueryRow> queryRows = new ArrayList<>();
        double[] plainHot = null;
        double[] plainCpu = null;
        double[] plainRepeat = null;
        double[] plainRepeatCpu = null;
        double[] plainCold = null;
        final double[] plainAnswers = new double[QUERIES.length];
        boolean coldOk = cold;
        for (final ColumnEncoding requested : all) {
            final Path root = work.resolve("table-" + all.indexOf(requested));
            final EncodingPolicy policy = EncodingPolicy.uniform(requested);
            new PartitionWriter(root, policy, source.meta().blockBytes(), 2, PartitionWriter.WriteHook.NONE).write(source.date(),
                List.of(source));
            final Path dir = root.resolve(source.date().toString()).resolve(source.name());
            final double[] hot = new double[QUERIES.length];
            final double[] hotCpu = new double[QUERIES.length];
            final double[] repeat = new double[QUERIES.length];
            final double[] repeatCpu = new double[QUERIES.length];
            final double[] repeatHits = new double[QUERIES.length];
            final double[] coldTimes = new double[QUERIES.length];
            try (PartitionTable t = PartitionTable.open(dir)) {
                // JIT warm-up of every encoding, not only plain: a query set timed first (one sym's rows)
                // otherwise ran an encoding's decoders in the interpreter
                for (int round = 0; round < WARM_UP_ROUNDS; round++) {
                    for (int q = 0; q < QUERIES.length; q++) {
                        final double answer = runQuery(t, q);
                        if (requested == ColumnEncoding.PLAIN) {
                            plainAnswers[q] = answer;
                        } else if (Double.compare(answer, plainAnswers[q]) != 0) {
                            // same rows summed in the same order: an encoding must give plain's answer exactly
                            throw new IllegalStateException("query answer differs from plain's [query=" + QUERIES[q] + ", encoding="
                                + requested + ", plain=" + plainAnswers[q] + ", answer=" + answer + ", round=" + round + "]");
                        }
                    }
                }
                for (int q = 0; q < QUERIES.length; q++) {
                    final double[] times = new double[runs];
                    final double[] cpu = new double[runs];
                    time(t, q, true, times, cpu);
                    hot[q] = median(times);
                    hotCpu[q] = median(cpu);
                    // asked again: emptied once, asked twice unmeasured (each read counts towards keeping its block decoded), then
                    // timed with what those asks left in the cache
                    ColumnFile.clearDecodedCache();
                    for (int ask = 0; ask < ASKS_BEFORE_REPEAT; ask++) {
                        runQuery(t, q);
                    }
                    final long hits0 = CACHE.hits();
                    final long misses0 = CACHE.misses();
                    time(t, q, false, times, cpu);
                    repeat[q] = median(times);
                    repeatCpu[q] = median(cpu);
                    final long lookups = CACHE.hits() - hits0 + CACHE.misses() - misses0;
                    repeatHits[q] = lookups == 0 ? Double.NaN : 100.0 * (CACHE.hits() - hits0) / lookups;
                }
            }
            if (coldOk) {
                for (int q = 0; q < QUERIES.length && coldOk; q++) {
                    final double[] times = new double[runs];
                    for (int run = 0; run < runs && coldOk; run++) {
                        coldOk = dropCache(dir);
                        try (PartitionTable t = PartitionTable.open(dir)) {
                            final long t0 = System.nanoTime();
                            runQuery(t, q);
                            times[run] = (System.nanoTime() - t0) / 1e6;
                        }
                    }
                    coldTimes[q] = median(times);
                }
            }
            if (requested == ColumnEncoding.PLAIN) {
                plainHot = hot;
                plainCpu = hotCpu;
                plainRepeat = repeat;
                plainRepeatCpu = repeatCpu;
                plainCold = coldTimes;
            }
            for (int q = 0; q < QUERIES.length; q++) {
                queryRows.add(new QueryRow(QUERIES[q], requested.toString(), hot[q], hot[q] / plainHot[q],
                    coldOk ? Double.valueOf(coldTimes[q]) : null, coldOk ? Double.valueOf(coldTimes[q] / plainCold[q]) : null,
                    hotCpu[q], hotCpu[q] / plainCpu[q], repeat[q], repeat[q] / plainRepeat[q], repeatCpu[q],
                    repeatCpu[q] / plainRepeatCpu[q], repeatHits[q]));
            }
            PartitionStore.deleteRecursively(root);
        }
        return new Result(source.date(), source.name(), rows, all.stream().map(ColumnEncoding::toString).toList(), List.copyOf(columnRows),
            List.copyOf(queryRows), coldOk, cold ? PageCache.METHOD + ", files unmapped first"
                : "not asked for", "write: encode + write to page cache, no fsync, best of " + runs + "; query: median of " + runs
                + " after " + WARM_UP_ROUNDS + " warm-up rounds of every query, the decoded-block cache emptied before each run; repeat:"
                + " median of " + runs + " more, after the cache was emptied once and the query asked " + ASKS_BEFORE_REPEAT
                + " times, with the process's decoded-block cache of " + (CACHE.capacityBytes() >> 20) + " MiB; blocks of "
                + source.meta().blockBytes() + " B raw plain, "
                + BlockCuts.blockBytes(ColumnEncoding.parse("lz4"), source.meta().blockBytes()) + " B lz4/snappy, "
                + BlockCuts.blockBytes(ColumnEncoding.parse("zstd"), source.meta().blockBytes()) + " B zstd");
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int WARM_UP_ROUNDS = 10;
    /** Asks of a query before its repeats are timed: a block read twice is kept decoded ({@link DecodedBlockCache}). */
    private static final int ASKS_BEFORE_REPEAT = 2;
    private static final DecodedBlockCache CACHE = DecodedBlockCache.shared();
    private static final String[] QUERIES = {"one-sym-all-columns", "scan-sum-numeric", "100-syms-10pct-window", "last-per-sym"};

    /** Runs query {@code q}; returns a checksum so the work cannot be optimised away. */
    static double runQuery(final PartitionTable t, final int q) {
        final int n = t.rowCount();
        if (n == 0) {
            return 0;
        }
        final SymRanges syms = t.syms();
        final TableSchema schema = t.schema();
        double sum = 0;
        switch (q) {
            case 0: {
                int best = 0;
                final int[] sizes = new int[syms.count()];
                for (int k = 0; k < syms.count(); k++) {
                    sizes[k] = syms.to(k) - syms.from(k);
                }
                final int[] sorted = sizes.clone();
                Arrays.sort(sorted);
                for (int k = 0; k < sizes.length; k++) {
                    if (sizes[k] == sorted[sorted.length / 2]) {
                        best = k;
                        break;
                    }
                }
                for (int c = 0; c < schema.columnCount(); c++) {
                    sum += readSum(t, c, syms.from(best), syms.to(best) - syms.from(best));
                }
                break;
            }
            case 1:
                for (int c = 2; c < schema.columnCount(); c++) {
                    sum += readSum(t, c, 0, n);
                }
                break;
            case 2: {
                final long first = t.column(TableSchema.TIME).getLong(syms.from(0));
                final long lo = first + 45 * (long) 23_400e9 / 100;
                final long hi = lo + (long) 23_400e9 / 10;
                final int step = Math.max(1, syms.count() / 100);
                final int value = schema.columnCount() > 2 ? 2 : 0;
                for (int k = 0; k < syms.count(); k += step) {
                    final int a = t.lowerBound(syms.from(k), syms.to(k), lo);
                    final int b = t.lowerBound(a, syms.to(k), hi + 1);
                    sum += readSum(t, TableSchema.TIME, a, b - a) + readSum(t, value, a, b - a);
                }
                break;
            }
            default: {
                final int value = schema.columnCount() > 2 ? 2 : 0;
                for (int k = 0; k < syms.count(); k++) {
                    sum += number(t.column(value), syms.to(k) - 1);
                }
                break;
            }
        }
        return sum;
    }

    /** One value of any column as a double (a symbol gives its code). */
    private static double number(final ColumnFile f, final int row) {
        return switch (f.type()) {
            case FLOAT64 -> f.getDouble(row);
            case FLOAT32 -> f.getFloat(row);
            case TIMESTAMP, INT64 -> f.getLong(row);
            case INT32, SYMBOL -> f.getInt(row);
            case INT16 -> f.getShort(row);
            default -> f.getByte(row);
        };
    }

    /**
     * The study's read of rows {@code [from, from + count)} of one column: in batches of at most 4096 values into
     * an array of the column's type, every value added to a double in row order (what its queries time).
     */
    public static double readSum(final PartitionTable t, final int column, final int from, final int count) {
        final ColumnType type = t.schema().type(column);
        // buffers no larger than the read: a 200-row window read with 4096-value buffers spent more
        // time zeroing them than reading a plain column
        final int chunk = Math.max(1, Math.min(4096, count));
        double sum = 0;
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] buf = new long[chunk];
                for (int at = 0; at < count; at += chunk) {
                    final int k = Math.min(chunk, count - at);
                    t.column(column).read(from + at, k, buf, 0);
                    for (int i = 0; i < k; i++) {
                        sum += buf[i];
                    }
                }
            }
            case FLOAT64 -> {
                final double[] buf = new double[chunk];
                for (int at = 0; at < count; at += chunk) {
                    final int k = Math.min(chunk, count - at);
                    t.column(column).read(from + at, k, buf, 0);
                    for (int i = 0; i < k; i++) {
                        sum += buf[i];
                    }
                }
            }
            case SYMBOL, INT32 -> {
                final int[] buf = new int[chunk];
                for (int at = 0; at < count; at += chunk) {
                    final int k = Math.min(chunk, count - at);
                    t.column(column).read(from + at, k, buf, 0);
                    for (int i = 0; i < k; i++) {
                        sum += buf[i];
                    }
                }
            }
            default -> {
                final int w = type.width();
                final byte[] buf = new byte[chunk * w];
                for (int at = 0; at < count; at += chunk) {
                    final int k = Math.min(chunk, count - at);
                    t.column(column).read(from + at, k, buf, 0);
                    for (int i = 0; i < k * w; i++) {
                        sum += buf[i];
                    }
                }
            }
        }
        return sum;
    }

    private static long writeColumn(final Path file, final ColumnType type, final ColumnEncoding e, final byte[] raw, final SymRanges syms,
                                    final int tableBlockBytes) throws IOException {
        final int w = type.width();
        final int rows = raw.length / w;
        final int blockRows = BlockCuts.blockBytes(e, tableBlockBytes) / w;
        try (ColumnFileWriter writer = new ColumnFileWriter(file, type, e, blockRows, rows, false)) {
            final UnsafeBuffer block = writer.block();
            for (int at = 0, n; at < rows; at += n) {
                n = BlockCuts.blockEnd(syms, at, rows, blockRows) - at;
                block.putBytes(0, raw, at * w, n * w);
                writer.writeBlock(n);
            }
            return writer.finish();
        }
    }

    /** Drops every file of a directory from the page cache ({@link PageCache}); false when the OS tool is missing or fails. */
    static boolean dropCache(final Path dir) {
        return PageCache.dropAll(dir);
    }

    /**
     * Asks query {@code q} {@code times.length} times, each one's wall and querying-thread CPU ms into {@code times} and
     * {@code cpu}; {@code firstReads}: the decoded-block cache emptied before each, so every ask decodes what it reads.
     */
    private static void time(final PartitionTable t, final int q, final boolean firstReads, final double[] times, final double[] cpu) {
        for (int run = 0; run < times.length; run++) {
            if (firstReads) {
                ColumnFile.clearDecodedCache();
            }
            final long c0 = THREADS.getCurrentThreadCpuTime();
            final long t0 = System.nanoTime();
            runQuery(t, q);
            times[run] = (System.nanoTime() - t0) / 1e6;
            cpu[run] = (THREADS.getCurrentThreadCpuTime() - c0) / 1e6;
        }
    }

    private static double median(final double[] v) {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
