package io.jtick.core.feed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The recorded market-data files jtick reads, by source name: {@code taq} (NYSE TAQ-format CSV,
 * {@link TaqSource}), {@code algoseek} (AlgoSeek/LEAN tick zips, {@link AlgoSeekSource}) and
 * {@code lobster} (LOBSTER level 1, {@link LobsterSource}). The feed replays them to a tickerplant;
 * the HDB's bulk import writes them into partitions.
 */
public final class FileSources {
    /** Source names. */
    public static final List<String> NAMES = List.of("taq", "algoseek", "lobster");
    private static final String TAQ = "highfrequency-taq-sample-2018-01";
    private static final String ALGOSEEK = "lean-algoseek-us-equity-ticks-2013-10";
    private static final String LOBSTER = "lobster-amzn-2012-06-21-level1";

    private FileSources() {
    }

    /** Where a source's sample lives under the shared data folder: a file (taq) or a folder (algoseek, lobster). */
    public static Path defaultPath(final Path dataDir, final String source, final String table) {
        return switch (name(source)) {
            case "taq" -> dataDir.resolve(TAQ).resolve("trade".equals(table) ? "trades.csv.gz" : "quotes.csv.gz");
            case "algoseek" -> dataDir.resolve(ALGOSEEK);
            default -> dataDir.resolve(LOBSTER);
        };
    }

    /**
     * Opens {@code table} (trade or quote) of a source at {@code path}.
     *
     * @param symbols algoseek: symbols to read (empty = all)
     * @param dates   algoseek: dates {@code yyyyMMdd} to read (empty = all)
     * @param ex      extra float columns of the schema
     * @throws IllegalArgumentException naming an unknown source or table, or files that are missing or unreadable
     */
    public static FileSource open(final String source, final String table, final Path path, final List<String> symbols,
                                    final List<String> dates, final int ex) throws IOException {
        final boolean trade = "trade".equals(table(table));
        return switch (name(source)) {
            case "taq" -> trade ? TaqSource.trades(path, ex) : TaqSource.quotes(path, ex);
            case "algoseek" -> AlgoSeekSource.open(path, table, symbols, dates, ex);
            default -> LobsterSource.open(path, table, ex);
        };
    }

    /** The table a file source reads, lower case, checked: trade or quote. */
    public static String table(final String table) {
        final String t = table == null ? "" : table.trim().toLowerCase(Locale.ROOT);
        if (!"trade".equals(t) && !"quote".equals(t)) {
            throw new IllegalArgumentException("unknown table, expected trade or quote [table=" + table + "]");
        }
        return t;
    }

    /** The source name, lower case, checked. */
    public static String name(final String source) {
        final String s = source == null ? "" : source.trim().toLowerCase(Locale.ROOT);
        if (!NAMES.contains(s)) {
            throw new IllegalArgumentException("unknown file source, expected taq, algoseek or lobster [source=" + source + "]");
        }
        return s;
    }
}
