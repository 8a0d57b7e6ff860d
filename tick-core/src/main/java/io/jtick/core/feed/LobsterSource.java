package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Replays a LOBSTER level-1 sample ({@code <SYM>_<yyyy-MM-dd>_..._message_1.csv[.gz]} and the
 * matching {@code orderbook_1} file; an optional header row is skipped). trade: message rows of
 * type 4 (visible execution) and 5 (hidden), price = Price / 10000, size = Size, cond = '4' or '5'.
 * quote: every order-book state with its message's time: bid = BestBid / 10000, bsize =
 * BestBidVolume, ask = BestAsk / 10000, asize = BestAskVolume. Time = date + seconds after New
 * York midnight.
 */
public final class LobsterSource extends FileSource {
    private final boolean trade;
    private final CsvLineReader messages;
    private final CsvLineReader book;
    private final long midnightNanos;

    private LobsterSource(final TableSchema schema, final boolean trade, final CsvLineReader messages, final CsvLineReader book,
                          final long midnightNanos, final String sym) {
        super(schema);
        this.trade = trade;
        this.messages = messages;
        this.book = book;
        this.midnightNanos = midnightNanos;
        this.rowSym = internSym(sym);
    }

    /** Opens the trade or quote replay of the LOBSTER files in {@code dir}. */
    public static LobsterSource open(final Path dir, final String table, final int ex) throws IOException {
        final boolean trade = "trade".equals(table);
        if (!trade && !"quote".equals(table)) {
            throw new IllegalArgumentException("unknown table [table=" + table + "]");
        }
        final Path message = find(dir, "_message_");
        final Path orderbook = trade ? null : find(dir, "_orderbook_");
        final String[] parts = message.getFileName().toString().split("_");
        final long midnight = LocalDate.parse(parts[1]).atStartOfDay(ZoneId.of("America/New_York")).toEpochSecond() * 1_000_000_000L;
        final CsvLineReader m = open(message);
        final CsvLineReader b = orderbook == null ? null : open(orderbook);
        return new LobsterSource(trade ? TableSchema.trade(ex) : TableSchema.quote(ex), trade, m, b, midnight, parts[0]);
    }

    private static Path find(final Path dir, final String kind) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("LOBSTER folder not found [dir=" + dir + "]");
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> {
                final String n = p.getFileName().toString();
                return n.contains(kind) && (n.endsWith(".csv") || n.endsWith(".csv.gz"));
            }).sorted().findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no LOBSTER file found [dir=" + dir + ", kind=" + kind + "]"));
        }
    }

    private static CsvLineReader open(final Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        if (file.getFileName().toString().endsWith(".gz")) {
            raw = new GZIPInputStream(raw, 1 << 16);
        }
        return new CsvLineReader(raw, file.toString());
    }

    private static boolean nextData(final CsvLineReader in) {
        while (in.next()) {
            final int c = in.firstChar(0, ' ');
            if (c >= '0' && c <= '9') {
                return true;
            }
        }
        return false;
    }

    @Override
    protected boolean readRow() {
        while (nextData(messages)) {
            if (!trade && !nextData(book)) {
                throw new IllegalArgumentException("order-book file shorter than message file [file=" + book.name()
                    + ", line=" + book.lineNumber() + "]");
            }
            try {
                messages.require(5);
                final long time = midnightNanos + messages.parseSecondsAsNanos(0);
                if (trade) {
                    final long type = messages.parseLong(1);
                    if (type == 4 || type == 5) {
                        rowTime = time;
                        row[2] = bits(messages.parseLong(4) / 10_000.0);
                        row[3] = messages.parseLong(3);
                        row[4] = '0' + type;
                        return true;
                    }
                } else {
                    book.require(4);
                    rowTime = time;
                    row[2] = bits(book.parseLong(2) / 10_000.0);
                    row[3] = bits(book.parseLong(0) / 10_000.0);
                    row[4] = book.parseLong(3);
                    row[5] = book.parseLong(1);
                    return true;
                }
            } catch (final IllegalArgumentException e) {
                skip(e);
            }
        }
        return false;
    }

    @Override
    protected void closeFiles() {
        messages.close();
        if (book != null) {
            book.close();
        }
    }
}
