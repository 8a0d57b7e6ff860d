package io.jtick.core.bulk;

import io.jtick.core.feed.FileSources;
import io.jtick.core.feed.FileSource;
import io.jtick.core.feed.TickSource;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;

/**
 * Bulk import of recorded market-data files into HDB partitions by each row's own date (kdb's
 * {@code .Q.fs} + {@code .Q.dpft}): a {@link FileSources} source (TAQ, AlgoSeek, LOBSTER, the parsers
 * the feed replays with) is read in frames, each row is filed under its date in {@code zone}, each
 * date is held as an in-memory table ({@link RealtimeTable}, as the RDB holds today) and written as
 * the end-of-day write-down writes a day ({@link PartitionWriter}: sorted by sym then time, sym index,
 * encoded, written to a temporary directory and renamed into place atomically; a date that exists is
 * replaced table by table, each swap atomic). The encoding is the request's, or the tier the date's age
 * puts it in (what the tiering job would do).
 *
 * <p>Dates are held until the input ends, or, past {@code maxBufferedRows}, written as soon as the
 * input has moved on to a later date (the sources read their files in time order); a row for a date
 * already written then is reported and skipped. A line that does not parse is reported with its file
 * and line and skipped, or, when the request is strict, ends the import (dates written before stay).
 *
 * <p>Runs on the caller's thread ({@link #run}); {@link #snapshot()} and {@link #cancel()} from any.
 */
public final class HdbImport {
    private static final int FRAME_ROWS = 65_536;

    /**
     * What to import.
     *
     * @param source   taq, algoseek or lobster
     * @param table    trade or quote
     * @param path     the file (taq) or folder (algoseek, lobster)
     * @param symbols  algoseek: symbols (empty = all)
     * @param dates    algoseek: dates {@code yyyyMMdd} (empty = all)
     * @param zone     a row's date is its time's date in this zone
     * @param encoding encoding of every column but sym ({@code plain}, {@code lz4}, {@code auto/zstd:3}...); null = the tier's
     * @param strict   stop at the first bad line instead of skipping it
     */
    public record Request(String source, String table, Path path, List<String> symbols, List<String> dates, ZoneId zone, String encoding,
                          boolean strict) {
        public Request {
            symbols = symbols == null ? List.of() : List.copyOf(symbols);
            dates = dates == null ? List.of() : List.copyOf(dates);
        }
    }

    /**
     * Where and how partitions are written.
     *
     * @param root            the HDB root
     * @param tiers           tier policy: a date's encoding when the request names none
     * @param today           today, for the date's age
     * @param blockBytes      raw bytes per column block
     * @param maxBufferedRows rows held in memory before completed dates are written early
     * @param maxBadLinesKept bad lines whose message the report keeps (all are counted)
     * @param writeLock       held while each date is written (the HDB service's store lock: no tiering run or reload
     *                        meanwhile); null = none
     */
    public record Settings(Path root, TierPolicy tiers, LocalDate today, int blockBytes, long maxBufferedRows, int maxBadLinesKept,
                           Lock writeLock) {
        public static Settings defaults(final Path root) {
            return new Settings(root, TierPolicy.defaults(), LocalDate.now(ZoneId.of("UTC")), PartitionWriter.DEFAULT_BLOCK_BYTES,
                50_000_000L, 100, null);
        }
    }

    /** One date written: its table's rows and bytes, and the encoding of its columns. */
    public record DateWritten(LocalDate date, String table, long rows, long rawBytes, long storedBytes, String encoding) {
    }

    /**
     * An import as it stands.
     *
     * @param id             import id
     * @param state          running, done, failed or cancelled
     * @param rowsRead       rows parsed from the files
     * @param rowsWritten    rows written into partitions
     * @param badLines       lines skipped (or, strict, the one that stopped it), rows for dates already written included
     * @param badLineSamples the first bad lines' messages, with file and line
     * @param dates          dates written so far, in order of writing
     * @param currentDate    the date of the row read last
     * @param error          why it failed, else null
     */
    public record Report(String id, String state, String source, String table, String path, String zone, long rowsRead, long rowsWritten,
                         long badLines, List<String> badLineSamples, List<DateWritten> dates, LocalDate currentDate, double seconds,
                         double rowsPerSecond, String error) {
        public Report {
            badLineSamples = List.copyOf(badLineSamples);
            dates = List.copyOf(dates);
        }
    }

    private final String id;
    private final Settings settings;
    private final Request request;
    private final List<String> samples = Collections.synchronizedList(new ArrayList<>());
    private final List<DateWritten> written = new CopyOnWriteArrayList<>();
    private final Set<LocalDate> writtenDates = new HashSet<>();
    private final long startNanos = System.nanoTime();
    private volatile String state = "running";
    private volatile String error;
    private volatile long rowsRead;
    private volatile long rowsWritten;
    private volatile long badLines;
    private volatile LocalDate currentDate;
    private volatile long endNanos;
    private volatile boolean cancelled;

    public HdbImport(final String id, final Settings settings, final Request request) {
        this.id = id;
        this.settings = settings;
        this.request = request;
    }

    public String id() {
        return id;
    }

    /** Asks the import to stop after the frame it is reading; dates written stay. */
    public void cancel() {
        cancelled = true;
    }

    /** Runs the import on this thread; returns its final report (never throws: a failure is the report's state and error). */
    public Report run() {
        try (FileSource source = open()) {
            if (!request.strict()) {
                source.onBadLine(this::bad);
            }
            read(source);
            state = cancelled ? "cancelled" : "done";
        } catch (final IOException | RuntimeException e) {
            error = e.getMessage() == null ? e.toString() : e.getMessage();
            if (request.strict() && e instanceof IllegalArgumentException && error.contains("[file=")) {
                bad(error);
            }
            state = "failed";
        } finally {
            endNanos = System.nanoTime();
        }
        return snapshot();
    }

    private FileSource open() throws IOException {
        return FileSources.open(request.source(), request.table(), request.path(), request.symbols(), request.dates(), 0);
    }

    private void bad(final String message) {
        if (countBad()) {
            samples.add(message);
        }
    }

    /** Counts a bad line or row; true while its message is still to be kept (the first {@code maxBadLinesKept}). */
    private boolean countBad() {
        badLines++;
        return samples.size() < settings.maxBadLinesKept();
    }

    private void read(final FileSource source) throws IOException {
        final TableSchema schema = source.schema();
        final SymbolCatalog symbols = new SymbolCatalog();
        final TreeMap<LocalDate, RealtimeTable> open = new TreeMap<>();
        final UpdateEncoder encoder = new UpdateEncoder();
        final UpdateDecoder decoder = new UpdateDecoder();
        final UpdateDecoder part = new UpdateDecoder();
        final ByteBuf buf = Unpooled.buffer(1 << 20);
        final ByteBuf split = Unpooled.buffer(1 << 16);
        final DayBounds bounds = new DayBounds(request.zone());
        long buffered = 0;
        try {
            while (!cancelled) {
                final long next = source.nextEventTime();
                if (next == TickSource.END) {
                    break;
                }
                bounds.of(next);
                buf.clear();
                final int n = source.encodeUpdate(encoder, buf, FRAME_ROWS, bounds.end, 0);
                rowsRead = source.rowsRead();
                if (n == 0) {
                    continue;
                }
                decoder.wrap(buf, 0);
                int from = 0;
                while (from < n) {
                    final LocalDate d = bounds.of(decoder.timestamp(from));
                    int to = from + 1;
                    while (to < n && bounds.contains(decoder.timestamp(to))) {
                        to++;
                    }
                    currentDate = d;
                    if (writtenDates.contains(d)) {
                        for (int r = from; r < to; r++) {
                            if (countBad()) {
                                samples.add("row for a date already written in this import (the input is not in date order beyond the "
                                    + "buffer of " + settings.maxBufferedRows() + " rows) [file=" + request.path() + ", date=" + d
                                    + ", time=" + Instant.ofEpochSecond(0, decoder.timestamp(r)) + "]");
                            }
                        }
                    } else {
                        final RealtimeTable t = open.computeIfAbsent(d, k -> new RealtimeTable(schema, symbols, 1 << 16));
                        if (from == 0 && to == n) {
                            t.append(schema, decoder);
                        } else {
                            split.clear();
                            copyRows(encoder, schema, decoder, from, to, split);
                            t.append(schema, part.wrap(split, 0));
                        }
                        buffered += to - from;
                    }
                    from = to;
                }
                if (buffered > settings.maxBufferedRows()) {
                    final LocalDate newest = open.lastKey();
                    while (!open.isEmpty() && open.firstKey().isBefore(newest) && buffered > settings.maxBufferedRows() / 2) {
                        final Map.Entry<LocalDate, RealtimeTable> e = open.pollFirstEntry();
                        buffered -= e.getValue().rowCount();
                        write(e.getKey(), e.getValue());
                    }
                }
            }
            while (!open.isEmpty() && !cancelled) {
                final Map.Entry<LocalDate, RealtimeTable> e = open.pollFirstEntry();
                write(e.getKey(), e.getValue());
            }
        } finally {
            buf.release();
            split.release();
        }
    }

    /** Copies rows {@code [from, to)} of a decoded frame into a new frame with the same dictionary. */
    private static void copyRows(final UpdateEncoder enc, final TableSchema schema, final UpdateDecoder d, final int from, final int to,
                                 final ByteBuf out) {
        int dictBytes = 0;
        for (int k = 0; k < d.symCount(); k++) {
            dictBytes += 1 + d.symLength(k);
        }
        enc.wrap(out, schema, to - from, dictBytes);
        for (int c = 0; c < schema.columnCount(); c++) {
            final int width = schema.type(c).width();
            out.setBytes(enc.dataOffset(c), d.buffer(), d.dataOffset(c) + from * width, (to - from) * width);
        }
        for (int k = 0; k < d.symCount(); k++) {
            enc.addSym(d.buffer(), d.symOffset(k), d.symLength(k));
        }
        enc.finish();
    }

    private void write(final LocalDate date, final RealtimeTable table) throws IOException {
        final EncodingPolicy policy;
        String encoding;
        if (request.encoding() != null && !request.encoding().isBlank()) {
            final String e = request.encoding().trim().toLowerCase(Locale.ROOT);
            policy = EncodingPolicy.uniform(ColumnEncoding.parse(e));
            encoding = e;
        } else {
            final TierPolicy.Tier tier = settings.tiers().tierFor(date, settings.today());
            policy = tier.policy();
            encoding = "tier " + tier.name() + " (" + tier.encoding() + ")";
        }
        final PartitionWriter writer = new PartitionWriter(settings.root(), policy, settings.blockBytes(), 2,
            PartitionWriter.WriteHook.NONE);
        final Lock lock = settings.writeLock();
        if (lock != null) {
            lock.lock();
        }
        final PartitionWriter.Written w;
        try {
            w = writer.write(date, List.of(table.segment((int) date.toEpochDay())));
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
        writtenDates.add(date);
        rowsWritten = rowsWritten + table.rowCount();
        written.add(new DateWritten(date, table.name(), table.rowCount(), w.rawBytes(), w.storedBytes(), encoding));
    }

    /** The import as it stands. */
    public Report snapshot() {
        final long end = endNanos;
        final double seconds = ((end != 0 ? end : System.nanoTime()) - startNanos) / 1e9;
        final long read = rowsRead;
        return new Report(id, state, request.source(), request.table(), String.valueOf(request.path()), request.zone().getId(), read,
            rowsWritten, badLines, new ArrayList<>(samples), new ArrayList<>(written), currentDate, Math.round(seconds * 1000) / 1000.0,
            seconds > 0 ? Math.round(read / seconds) : 0, error);
    }

    /** The day a time falls in, in a zone, cached while times stay inside it. */
    private static final class DayBounds {
        private final ZoneId zone;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        LocalDate date;

        DayBounds(final ZoneId zone) {
            this.zone = zone;
        }

        boolean contains(final long t) {
            return t >= start && t < end;
        }

        LocalDate of(final long t) {
            if (!contains(t)) {
                date = Instant.ofEpochSecond(Math.floorDiv(t, 1_000_000_000L), Math.floorMod(t, 1_000_000_000L)).atZone(zone).toLocalDate();
                start = nanos(date.atStartOfDay(zone).toInstant());
                end = nanos(date.plusDays(1).atStartOfDay(zone).toInstant());
            }
            return date;
        }

        private static long nanos(final Instant i) {
            return i.getEpochSecond() * 1_000_000_000L + i.getNano();
        }
    }
}
