package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipInputStream;

/**
 * Replays the AlgoSeek/LEAN equity tick zips ({@code <dir>/trade/<sym>_<yyyyMMdd>_trade.zip},
 * {@code <dir>/quote/<sym>_<yyyyMMdd>_quote.zip}; headerless CSV, ms since New York midnight, prices
 * x 10000). Day by day; the selected symbols of a day are merged in time order.
 * trade: price = col2 / 10000, size = col3, cond = 'F' intermarket sweep (0x20), 'T' extended
 * hours (0x2000), else '@' (LEAN's hex flags in col5 mapped to TAQ letters).
 * quote: each bid row is paired with the ask row after it (a lone ask row, as the first line of
 * every 20131007 file, is skipped and counted in {@link #skippedTicks()}).
 */
public final class AlgoSeekSource extends FileSource {
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final DateTimeFormatter DATE = DateTimeFormatter.BASIC_ISO_DATE;

    private final boolean trade;
    private final List<List<Path>> days;
    private int day;
    private Cursor[] cursors = new Cursor[0];
    private long skippedTicks;

    private AlgoSeekSource(final TableSchema schema, final boolean trade, final List<List<Path>> days) {
        super(schema);
        this.trade = trade;
        this.days = days;
    }

    /**
     * Opens the replay of {@code table} (trade|quote) for the given symbols and dates
     * ({@code yyyyMMdd}); an empty list means all that are present.
     */
    public static AlgoSeekSource open(final Path dir, final String table, final List<String> symbols, final List<String> dates,
                                      final int ex) throws IOException {
        final boolean trade = "trade".equals(table);
        if (!trade && !"quote".equals(table)) {
            throw new IllegalArgumentException("unknown table [table=" + table + "]");
        }
        final Path folder = dir.resolve(table);
        if (!Files.isDirectory(folder)) {
            throw new IllegalArgumentException("AlgoSeek folder not found [dir=" + folder + "]");
        }
        final TreeMap<String, List<Path>> byDate = new TreeMap<>();
        final TreeSet<String> wantSyms = new TreeSet<>();
        symbols.forEach(s -> wantSyms.add(s.toLowerCase(Locale.ROOT)));
        try (Stream<Path> files = Files.list(folder)) {
            files.map(Path::getFileName).map(Path::toString).sorted().forEach(name -> {
                final String[] parts = name.split("_");
                if (parts.length == 3 && parts[2].equals(table + ".zip")
                    && (wantSyms.isEmpty() || wantSyms.contains(parts[0])) && (dates.isEmpty() || dates.contains(parts[1]))) {
                    byDate.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(folder.resolve(name));
                }
            });
        }
        if (byDate.isEmpty()) {
            throw new IllegalArgumentException("no AlgoSeek files match [dir=" + folder + ", symbols=" + symbols
                + ", dates=" + dates + "]");
        }
        return new AlgoSeekSource(trade ? TableSchema.trade(ex) : TableSchema.quote(ex), trade, new ArrayList<>(byDate.values()));
    }

    /** One-sided quote ticks dropped because they had no partner. */
    public long skippedTicks() {
        return skippedTicks;
    }

    @Override
    protected boolean readRow() {
        while (true) {
            Cursor best = null;
            for (final Cursor c : cursors) {
                if (c.has && (best == null || c.time < best.time)) {
                    best = c;
                }
            }
            if (best != null) {
                rowTime = best.time;
                rowSym = best.symId;
                System.arraycopy(best.row, 2, row, 2, row.length - 2);
                best.advance();
                return true;
            }
            closeFiles();
            if (day >= days.size()) {
                return false;
            }
            openDay(days.get(day++));
        }
    }

    private void openDay(final List<Path> files) {
        cursors = new Cursor[files.size()];
        for (int i = 0; i < files.size(); i++) {
            cursors[i] = new Cursor(files.get(i));
        }
    }

    @Override
    protected void closeFiles() {
        for (final Cursor c : cursors) {
            c.in.close();
        }
        cursors = new Cursor[0];
    }

    static int condChar(final long flags) {
        if ((flags & 0x20) != 0) {
            return 'F';
        }
        if ((flags & 0x2000) != 0) {
            return 'T';
        }
        return '@';
    }

    private final class Cursor {
        final CsvLineReader in;
        final int symId;
        final long midnightNanos;
        final long[] row = new long[schema.columnCount()];
        boolean has;
        long time;

        Cursor(final Path file) {
            final String[] parts = file.getFileName().toString().split("_");
            symId = internSym(parts[0].toUpperCase(Locale.ROOT));
            midnightNanos = LocalDate.parse(parts[1], DATE).atStartOfDay(NEW_YORK).toEpochSecond() * 1_000_000_000L;
            try {
                final ZipInputStream zip = new ZipInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
                if (zip.getNextEntry() == null) {
                    zip.close();
                    throw new IllegalArgumentException("empty zip [file=" + file + "]");
                }
                in = new CsvLineReader(zip, file.toString());
            } catch (final IOException e) {
                throw new UncheckedIOException("cannot open [file=" + file + "]", e);
            }
            advance();
        }

        void advance() {
            has = trade ? readTrade() : readQuote();
        }

        private boolean readTrade() {
            while (in.next()) {
                try {
                    in.require(5);
                    time = midnightNanos + in.parseLong(0) * 1_000_000L;
                    row[2] = bits(in.parseLong(1) / 10_000.0);
                    row[3] = in.parseLong(2);
                    row[4] = condChar(in.parseHex(4));
                    return true;
                } catch (final IllegalArgumentException e) {
                    skip(e);
                }
            }
            return false;
        }

        private boolean readQuote() {
            while (true) {
                if (!in.next()) {
                    return false;
                }
                final long bid;
                try {
                    in.require(5);
                    bid = in.parseLong(1);
                    if (bid == 0 && in.parseLong(3) != 0) {
                        skippedTicks++;
                        continue;
                    }
                    time = midnightNanos + in.parseLong(0) * 1_000_000L;
                    row[2] = bits(bid / 10_000.0);
                    row[4] = in.parseLong(2);
                } catch (final IllegalArgumentException e) {
                    skip(e);
                    continue;
                }
                if (!in.next()) {
                    skippedTicks++;
                    return false;
                }
                try {
                    in.require(5);
                    row[3] = bits(in.parseLong(3) / 10_000.0);
                    row[5] = in.parseLong(4);
                    return true;
                } catch (final IllegalArgumentException e) {
                    skip(e);
                }
            }
        }
    }
}
