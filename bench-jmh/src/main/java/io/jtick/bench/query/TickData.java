package io.jtick.bench.query;

import io.jtick.core.feed.SyntheticDay;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;

/**
 * One data set as plain columns, in time order: trades {@code (time, sym, price, size, cond)} and
 * quotes {@code (time, sym, bid, ask, bsize, asize)}, times in epoch ns on whole microseconds (the
 * peers store microseconds). Sym ids index {@link #syms}, which is sorted. Also the parameters of
 * the questions: the one sym and the time window.
 */
public final class TickData {
    public final String name;
    public final String[] syms;
    public final int trades;
    public final long[] tTime;
    public final int[] tSym;
    public final double[] tPrice;
    public final long[] tSize;
    public final byte[] tCond;
    public final int quotes;
    public final long[] qTime;
    public final int[] qSym;
    public final double[] qBid;
    public final double[] qAsk;
    public final long[] qBsize;
    public final long[] qAsize;
    /** The sym of the one-sym questions. */
    public final String oneSym;
    /** The window of the spread question, inclusive, epoch ns. */
    public final long windowFrom;
    public final long windowTo;

    private TickData(final String name, final String[] syms, final int trades, final int quotes, final String oneSym,
                     final long windowFrom, final long windowTo) {
        this.name = name;
        this.syms = syms;
        this.trades = trades;
        this.tTime = new long[trades];
        this.tSym = new int[trades];
        this.tPrice = new double[trades];
        this.tSize = new long[trades];
        this.tCond = new byte[trades];
        this.quotes = quotes;
        this.qTime = new long[quotes];
        this.qSym = new int[quotes];
        this.qBid = new double[quotes];
        this.qAsk = new double[quotes];
        this.qBsize = new long[quotes];
        this.qAsize = new long[quotes];
        this.oneSym = oneSym;
        this.windowFrom = windowFrom;
        this.windowTo = windowTo;
    }

    /** By name: {@code synthetic} ({@code rows} trades and quotes over {@code symCount} syms) or {@code taq}. */
    public static TickData load(final String dataset, final int rows, final int symCount) throws IOException {
        switch (dataset) {
            case "synthetic":
                return synthetic(rows, symCount, 20_261_120L);
            case "taq":
                return taq(sharedData().resolve("highfrequency-taq-sample-2018-01"));
            default:
                throw new IllegalArgumentException("unknown data set [dataset=" + dataset + "]: synthetic or taq");
        }
    }

    /** {@code ../shared/data} from the repository root, or {@code -Djtick.shared.data}. */
    public static Path sharedData() {
        final String p = System.getProperty("jtick.shared.data");
        if (p != null) {
            return Path.of(p);
        }
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            final Path candidate = dir.resolveSibling("shared").resolve("data");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            dir = dir.getParent();
        }
        return Path.of("../shared/data");
    }

    /**
     * A trading day, the synthetic day's session ({@link SyntheticDay#OPEN}, {@link SyntheticDay#SESSION_NANOS})
     * on 2026-11-20 but in UTC: {@code rows} trades and {@code rows} quotes, syms uniform over
     * {@code S0000..}, a random-walk price per sym, quotes one to three cents either side of a walking
     * mid. Unlike {@link SyntheticDay}'s updates of rows sharing a time, trade i sits in slot i of
     * 2.34 ms (times distinct, increasing, whole microseconds, as the peers store them) and quote i
     * half a slot later, so no trade and quote share a time and "the prevailing quote" is one row in
     * every system; the rows are this benchmark's own (its figures and QueryCheck's answers are
     * measured on them), so they stay as they were.
     */
    public static TickData synthetic(final int rows, final int symCount, final long seed) {
        final String[] syms = new String[symCount];
        for (int i = 0; i < symCount; i++) {
            syms[i] = String.format("S%04d", i);
        }
        final long open = SyntheticDay.open(LocalDate.parse("2026-11-20"), ZoneOffset.UTC);
        final long day = SyntheticDay.SESSION_NANOS;
        final long slotMicros = day / 1000 / rows;
        final TickData d = new TickData("synthetic-" + rows + "x" + symCount, syms, rows, rows, syms[symCount / 2],
            open + 1_800_000_000_000L, open + 5_400_000_000_000L);
        final SplittableRandom r = new SplittableRandom(seed);
        final long[] tradeCents = new long[symCount];
        final long[] midCents = new long[symCount];
        for (int s = 0; s < symCount; s++) {
            tradeCents[s] = 1000 + r.nextInt(49_000);
            midCents[s] = tradeCents[s];
        }
        final byte[] conds = "@@@@FIT ".getBytes(StandardCharsets.US_ASCII);
        final long jitter = Math.max(1, slotMicros / 2 - 1);
        for (int i = 0; i < rows; i++) {
            final long slot = open + i * slotMicros * 1000;
            final int s = r.nextInt(symCount);
            d.tTime[i] = slot + r.nextLong(jitter) * 1000;
            d.tSym[i] = s;
            tradeCents[s] = Math.max(100, tradeCents[s] + r.nextInt(5) - 2);
            d.tPrice[i] = tradeCents[s] / 100.0;
            d.tSize[i] = 100L * (1 + r.nextInt(20));
            d.tCond[i] = conds[r.nextInt(conds.length)];
            final int q = r.nextInt(symCount);
            d.qTime[i] = slot + (slotMicros / 2 + r.nextLong(jitter)) * 1000;
            d.qSym[i] = q;
            midCents[q] = Math.max(100, midCents[q] + r.nextInt(5) - 2);
            final int half = 1 + r.nextInt(3);
            d.qBid[i] = (midCents[q] - half) / 100.0;
            d.qAsk[i] = (midCents[q] + half) / 100.0;
            d.qBsize[i] = 100L * (1 + r.nextInt(20));
            d.qAsize[i] = 100L * (1 + r.nextInt(20));
        }
        return d;
    }

    /**
     * The TAQ sample (one pseudonymised stock, 2-3 Jan 2018): trades.csv.gz and quotes.csv.gz.
     * Times are whole milliseconds with many ties; the k-th row of a millisecond gets k extra
     * microseconds (file order kept), so that "the prevailing quote" is one row in every system
     * (DuckDB's ASOF has no defined order among equal times). cond is COND's first character
     * (space when empty), bsize/asize are BIDSIZ/OFRSIZ as recorded (round lots).
     */
    public static TickData taq(final Path dir) throws IOException {
        final List<String[]> t = csv(dir.resolve("trades.csv.gz"));
        final List<String[]> q = csv(dir.resolve("quotes.csv.gz"));
        final int[] ti = header(t.get(0), "DT", "SYMBOL", "PRICE", "SIZE", "COND");
        final int[] qi = header(q.get(0), "DT", "SYMBOL", "BID", "OFR", "BIDSIZ", "OFRSIZ");
        final java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (int i = 1; i < t.size(); i++) {
            names.add(t.get(i)[ti[1]]);
        }
        for (int i = 1; i < q.size(); i++) {
            names.add(q.get(i)[qi[1]]);
        }
        final String[] syms = names.toArray(new String[0]);
        final Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < syms.length; i++) {
            ids.put(syms[i], i);
        }
        final long from = Instant.parse("2018-01-02T14:30:00Z").toEpochMilli() * 1_000_000L;
        final TickData d = new TickData("taq", syms, t.size() - 1, q.size() - 1, syms[0], from, from + 3_600_000_000_000L);
        final long[] tMs = new long[d.trades];
        for (int i = 0; i < d.trades; i++) {
            final String[] f = t.get(i + 1);
            tMs[i] = Instant.parse(f[ti[0]]).toEpochMilli();
            d.tSym[i] = ids.get(f[ti[1]]);
            d.tPrice[i] = Double.parseDouble(f[ti[2]]);
            d.tSize[i] = Long.parseLong(f[ti[3]]);
            d.tCond[i] = (byte) (f[ti[4]].isEmpty() ? ' ' : f[ti[4]].charAt(0));
        }
        spread(tMs, d.tTime);
        final long[] qMs = new long[d.quotes];
        for (int i = 0; i < d.quotes; i++) {
            final String[] f = q.get(i + 1);
            qMs[i] = Instant.parse(f[qi[0]]).toEpochMilli();
            d.qSym[i] = ids.get(f[qi[1]]);
            d.qBid[i] = Double.parseDouble(f[qi[2]]);
            d.qAsk[i] = Double.parseDouble(f[qi[3]]);
            d.qBsize[i] = Long.parseLong(f[qi[4]]);
            d.qAsize[i] = Long.parseLong(f[qi[5]]);
        }
        spread(qMs, d.qTime);
        return d;
    }

    /** ms → ns with the k-th repeat of a millisecond k µs later. */
    private static void spread(final long[] ms, final long[] out) {
        int k = 0;
        for (int i = 0; i < ms.length; i++) {
            if (i > 0 && ms[i] < ms[i - 1]) {
                throw new IllegalStateException("TAQ rows out of time order [row=" + i + "]");
            }
            k = i > 0 && ms[i] == ms[i - 1] ? k + 1 : 0;
            if (k >= 1000) {
                throw new IllegalStateException("more than 1000 rows in one millisecond [row=" + i + "]");
            }
            out[i] = ms[i] * 1_000_000L + k * 1000L;
        }
    }

    private static int[] header(final String[] h, final String... names) {
        final int[] idx = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            idx[i] = Arrays.asList(h).indexOf(names[i]);
            if (idx[i] < 0) {
                throw new IllegalArgumentException("TAQ header has no column [column=" + names[i] + "]");
            }
        }
        return idx;
    }

    private static List<String[]> csv(final Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("TAQ sample not found [file=" + file + "]: the real data lives in ../shared/data "
                + "(see its README); run with -p dataset=synthetic without it");
        }
        final List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file), 1 << 16),
            StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                rows.add(line.split(",", -1));
            }
        }
        return rows;
    }

    @Override
    public String toString() {
        return name + "[trades=" + trades + ", quotes=" + quotes + ", syms=" + syms.length + "]";
    }
}
