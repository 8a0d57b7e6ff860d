package io.jtick.lab.readthroughput;

import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.ReadThroughputFigures;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.core.bulk.HdbImport;
import io.jtick.core.feed.FileSources;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.replay.ReplayServer;
import io.jtick.core.replay.ReplaySettings;
import io.jtick.core.wire.ControlFrames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The replay experiment's laboratory: an HDB in a temporary directory under the work directory, a
 * {@link ReplayServer} on loopback over it, and the days the entries ask for, each prepared once per
 * run: the synthetic day ({@link CountedDays}, with its row counter) written in the entry's encoding,
 * or a day of real AlgoSeek quotes (2013-10-08, AIG, BAC and IBM) imported from the shared data with
 * the bulk import. An entry is one replay of the whole day by N consumers ({@link ReadThroughputMeasure}),
 * all of one stream, or each of its own stream (its share of the syms); before the first entry one
 * unmeasured replay warms the JIT. Everything is deleted at {@link #close()}.
 */
public final class ReadThroughputLab implements AutoCloseable {
    private static final LocalDate FIRST_SYNTHETIC = LocalDate.of(2026, 1, 5);
    private static final String ALGOSEEK_DATE = "20131008";
    private static final long TIMEOUT_MILLIS = 600_000;
    private static final Logger LOG = LoggerFactory.getLogger(ReadThroughputLab.class);

    private final Path workDir;
    private final Path dataDir;
    private final long seed;
    private final Map<String, Day> days = new HashMap<>();
    private final TickMetrics metrics = new TickMetrics();
    private Path root;
    private HistoricalDatabase hdb;
    private ReplayServer server;
    private boolean warmed;

    /** A day ready to replay: its date, table, rows by sym (sym order), and whether it has the row counter. */
    private record Day(LocalDate date, String table, long rows, Map<String, Long> rowsBySym, boolean counted) {
    }

    public ReadThroughputLab(final Path workDir, final Path dataDir, final long seed) {
        this.workDir = workDir;
        this.dataDir = dataDir;
        this.seed = seed;
    }

    private void start() throws IOException {
        if (server != null) {
            return;
        }
        Files.createDirectories(workDir);
        root = Files.createTempDirectory(workDir, "replay-lab-");
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, ReplaySettings.defaults(root).withPort(0), metrics).start();
    }

    /** Measures one entry; never throws (a failure is a row with status failed). */
    public RowResult run(final int index, final LabParams p, final BooleanSupplier stop, final Consumer<String> phase) {
        try {
            phase.accept("preparing the day");
            start();
            final Day day = day(p);
            if (stop.getAsBoolean()) {
                return failed(index, p, "stopped on request", RunReport.STOPPED);
            }
            final List<ControlFrames.Replay> requests = new ArrayList<>();
            final long[] expected = new long[p.subscribers()];
            requests(p, day, requests, expected);
            if (!warmed) {
                phase.accept("warm-up");
                ReadThroughputMeasure.run(server.port(), List.of(requests.get(0)), new long[] {expected[0]}, counter(day), TIMEOUT_MILLIS);
                warmed = true;
            }
            phase.accept("measuring");
            final ReadThroughputMeasure.Result m =
                ReadThroughputMeasure.run(server.port(), requests, expected, counter(day), TIMEOUT_MILLIS);
            return row(index, p, day, m);
        } catch (final IOException | RuntimeException e) {
            return failed(index, p, "replay lab failed: " + e, RunReport.FAILED);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(index, p, "interrupted", RunReport.STOPPED);
        }
    }

    private static int counter(final Day day) {
        return day.counted() ? (int) day.rows() : 0;
    }

    /** One stream: every consumer asks for the whole day. N streams: consumer k reads stream k % N, the syms s with s % N = k % N. */
    private static void requests(final LabParams p, final Day day, final List<ControlFrames.Replay> out, final long[] expected) {
        final int epochDay = (int) day.date().toEpochDay();
        final ControlFrames.Replay all = ControlFrames.Replay.of(List.of(day.table()), epochDay, epochDay);
        final List<String> syms = new ArrayList<>(day.rowsBySym().keySet());
        final int streams = Math.min(p.streams(), Math.max(1, syms.size()));
        for (int k = 0; k < p.subscribers(); k++) {
            if (streams == 1) {
                out.add(all);
                expected[k] = day.rows();
                continue;
            }
            final List<String> mine = new ArrayList<>();
            long rows = 0;
            for (int s = k % streams; s < syms.size(); s += streams) {
                mine.add(syms.get(s));
                rows += day.rowsBySym().get(syms.get(s));
            }
            out.add(all.withSyms(mine));
            expected[k] = rows;
        }
    }

    private Day day(final LabParams p) throws IOException {
        final String key = p.data() + "|" + p.encoding() + "|" + p.rows() + "|" + p.syms();
        Day d = days.get(key);
        if (d != null) {
            return d;
        }
        if ("algoseek".equals(p.data())) {
            final Path dir = FileSources.defaultPath(dataDir, "algoseek", "quote");
            if (!Files.isDirectory(dir)) {
                throw new IOException("the AlgoSeek sample is not there [dir=" + dir + "]: set the data folder (tick.feed.data-dir)");
            }
            final LocalDate date = LocalDate.parse(ALGOSEEK_DATE, DateTimeFormatter.BASIC_ISO_DATE);
            final HdbImport.Report r = new HdbImport("lab", new HdbImport.Settings(root, TierPolicy.defaults(), date,
                PartitionWriter.DEFAULT_BLOCK_BYTES, 50_000_000L, 10, null), new HdbImport.Request("algoseek", "quote", dir, List.of(),
                List.of(ALGOSEEK_DATE), ZoneId.of("America/New_York"), p.encoding(), false)).run();
            if (!"done".equals(r.state())) {
                throw new IOException("import of the AlgoSeek day failed: " + r.error());
            }
            d = loaded(date, "quote", false);
        } else {
            final LocalDate date = FIRST_SYNTHETIC.plusDays(days.size());
            CountedDays.write(root, date, CountedDays.synthetic(date, p.rows(), p.syms(), seed), p.encoding());
            d = loaded(date, "trade", true);
        }
        days.put(key, d);
        return d;
    }

    private Day loaded(final LocalDate date, final String table, final boolean counted) throws IOException {
        hdb.reload();
        final List<StoredTable> parts = hdb.acquire(table, date, date);
        try {
            if (parts.isEmpty()) {
                throw new IOException("the day was not written [date=" + date + ", table=" + table + "]");
            }
            final SymRanges syms = parts.get(0).syms();
            final Map<String, Long> bySym = new LinkedHashMap<>();
            for (int k = 0; k < syms.count(); k++) {
                bySym.put(syms.name(k), (long) (syms.to(k) - syms.from(k)));
            }
            return new Day(date, table, parts.get(0).rowCount(), bySym, counted);
        } finally {
            parts.forEach(StoredTable::release);
        }
    }

    private static RowResult row(final int index, final LabParams p, final Day day, final ReadThroughputMeasure.Result m) {
        final int streams = Math.min(p.streams(), Math.max(1, day.rowsBySym().size()));
        final Double tb = TimeBaseFigures.total(p.subscribers(), streams);
        final Double tb2 = TimeBaseFigures.twoVcpu(p.subscribers());
        final ReadThroughputFigures f = new ReadThroughputFigures(p.subscribers(), streams, p.data(), p.encoding(), day.rows(), m.rows(),
            RowResult.round(m.seconds()), Math.round(m.rowsPerSecond()), Math.round(m.perConsumerMedian()), Math.round(m.bytesPerSecond()),
            RowResult.round(m.bytesPerRow()), RowResult.round(m.serverCpu()), RowResult.round(m.consumerCpu()), m.inOrder(),
            m.exactlyOnce(), tb, TimeBaseFigures.ref(p.subscribers(), streams), tb == null ? null : RowResult.round(m.rowsPerSecond() / tb),
            tb2, tb2 == null ? null : RowResult.round(m.rowsPerSecond() / tb2));
        long min = Long.MAX_VALUE;
        long max = 0;
        for (final double x : m.perConsumer()) {
            min = Math.min(min, Math.round(x));
            max = Math.max(max, Math.round(x));
        }
        final boolean complete = m.problem() == null && m.inOrder() && m.exactlyOnce();
        final String status = m.problem() == null ? RunReport.DONE : RunReport.FAILED;
        return new RowResult(index, p, status, m.problem(), true, 0, 0, RowResult.round(m.seconds()), m.rows(), 0, m.rows(), min, max,
            complete, 0, Math.round(m.rowsPerSecond()), m.bytesPerRow(), 0, 0, Map.of(), null, null, null, null, List.of(), f);
    }

    private static RowResult failed(final int index, final LabParams p, final String error, final String status) {
        return new RowResult(index, p, status, error, false, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, Map.of(), null, null, null, null,
            List.of(), null);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        if (hdb != null) {
            hdb.close();
        }
        if (root != null) {
            try {
                PartitionStore.deleteRecursively(root);
            } catch (final IOException e) {
                LOG.warn("could not delete the replay lab's HDB [dir={}]: {}", root, e.toString());
            }
        }
    }
}
