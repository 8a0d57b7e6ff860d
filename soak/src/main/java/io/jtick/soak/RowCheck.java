package io.jtick.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The end-to-end check of a numbered feed's rows ({@code rowIds}: the trade table's size column holds
 * each row's number, 1, 2, 3... in the order the feed generated them): every number from 1 to the
 * number generated is in the RDB or in one of the HDB's days exactly once; in the RDB they come in the
 * order generated (its rows are in arrival order); in an HDB day, sorted by sym then time with arrival
 * order kept among equal times, each sym's numbers grow.
 */
public final class RowCheck {
    private static final int SHOW = 10;

    private RowCheck() {
    }

    /**
     * What was found.
     *
     * @param generated   rows the feed generated (1..generated expected)
     * @param rdbRows     rows in the RDB's trade table
     * @param hdbRows     rows in the HDB's trade table, every day
     * @param missing     numbers found nowhere (first few in {@code examples})
     * @param duplicates  numbers found more than once
     * @param outOfRange  numbers outside 1..generated
     * @param outOfOrder  RDB rows, or HDB rows within a sym, whose number is not above the one before
     */
    public record Result(long generated, long rdbRows, long hdbRows, long missing, long duplicates, long outOfRange, long outOfOrder,
                         List<String> examples) {
        public boolean ok() {
            return missing == 0 && duplicates == 0 && outOfRange == 0 && outOfOrder == 0 && rdbRows + hdbRows == generated;
        }

        public String text() {
            return String.format(java.util.Locale.ROOT, "generated=%,d rdb=%,d hdb=%,d missing=%d duplicates=%d outOfRange=%d "
                + "outOfOrder=%d exactlyOnceInOrder=%s%s", generated, rdbRows, hdbRows, missing, duplicates, outOfRange, outOfOrder, ok(),
                examples.isEmpty() ? "" : " examples=" + examples);
        }
    }

    /** Reads every trade row of the RDB and of every HDB day (when the stack has an HDB) and checks them. */
    public static Result check(final ProcessStack stack, final long generated) throws IOException, InterruptedException {
        if (generated > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("too many rows to check [generated=" + generated + "]");
        }
        final BitSet seen = new BitSet((int) generated + 1);
        final long[] counts = new long[4]; // duplicates, outOfRange, outOfOrder, rows
        final List<String> examples = new ArrayList<>();
        try (InputStream in = stack.queryCsv(stack.rdb(), "{\"table\":\"trade\",\"select\":[\"size\"]}")) {
            final long[] last = {0};
            lines(in, (sym, n) -> {
                take(seen, n, generated, counts, examples, "rdb");
                if (n <= last[0]) {
                    counts[2]++;
                    example(examples, "rdb out of order: " + n + " after " + last[0]);
                }
                last[0] = n;
            }, false);
        }
        final long rdbRows = counts[3];
        if (stack.hdb() != null) {
            for (final Object p : (List<?>) stack.get(stack.hdb(), "/api/partitions")) {
                final String date = String.valueOf(((Map<?, ?>) p).get("date"));
                final Map<String, Long> lastBySym = new HashMap<>();
                final String query = "{\"table\":\"trade\",\"date\":\"" + date + "\",\"select\":[\"sym\",\"size\"]}";
                try (InputStream in = stack.queryCsv(stack.hdb(), query)) {
                    lines(in, (sym, n) -> {
                        take(seen, n, generated, counts, examples, "hdb " + date);
                        final Long before = lastBySym.put(sym, n);
                        if (before != null && n <= before) {
                            counts[2]++;
                            example(examples, "hdb " + date + " " + sym + " out of order: " + n + " after " + before);
                        }
                    }, true);
                }
            }
        }
        final long missing = generated - seen.cardinality() + (seen.get(0) ? 1 : 0);
        if (missing > 0) {
            int shown = 0;
            for (int n = seen.nextClearBit(1); n <= generated && shown < SHOW; n = seen.nextClearBit(n + 1), shown++) {
                example(examples, "missing " + n);
            }
        }
        return new Result(generated, rdbRows, counts[3] - rdbRows, missing, counts[0], counts[1], counts[2], examples);
    }

    private static void take(final BitSet seen, final long n, final long generated, final long[] counts, final List<String> examples,
                             final String where) {
        counts[3]++;
        if (n < 1 || n > generated) {
            counts[1]++;
            example(examples, where + " out of range: " + n);
        } else if (seen.get((int) n)) {
            counts[0]++;
            example(examples, where + " duplicate: " + n);
        } else {
            seen.set((int) n);
        }
    }

    private static void example(final List<String> examples, final String e) {
        if (examples.size() < SHOW) {
            examples.add(e);
        }
    }

    @FunctionalInterface
    private interface Row {
        void take(String sym, long n);
    }

    /** CSV lines after the header: {@code size} or {@code sym,size}. */
    private static void lines(final InputStream in, final Row row, final boolean withSym) throws IOException {
        final BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII), 1 << 16);
        r.readLine();
        String line;
        while ((line = r.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            if (withSym) {
                final int comma = line.indexOf(',');
                row.take(line.substring(0, comma), Long.parseLong(line, comma + 1, line.length(), 10));
            } else {
                row.take(null, Long.parseLong(line));
            }
        }
    }
}
