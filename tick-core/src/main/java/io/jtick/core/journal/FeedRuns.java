package io.jtick.core.journal;

import java.util.Arrays;

/**
 * The numbered feeds' own update numbers that one journal entry holds, as runs of consecutive
 * numbers per feed: one update has one run of one number; a timer batch merged into one entry has
 * a run per feed per stretch of consecutive numbers it holds (a feed whose updates alternate
 * between tables gives each table's batch every other number, so runs of one). The journal writes
 * them as the entry's feed trailer ({@link Journal#append}) and reports them back at start-up
 * ({@link Journal#scanFeeds}). Reused by its writer: {@link #clear}, then {@link #add}.
 */
public final class FeedRuns {
    private byte[][] names = new byte[4][];
    private long[] first = new long[4];
    private long[] last = new long[4];
    private int size;

    /** Forgets every run. */
    public FeedRuns clear() {
        Arrays.fill(names, 0, size, null);
        size = 0;
        return this;
    }

    /**
     * Adds number {@code n} of the feed called {@code name} (1..255 ASCII bytes; pass the feed's own
     * array each time): it extends the feed's latest run when it follows it, else starts a new run.
     */
    public FeedRuns add(final byte[] name, final long n) {
        for (int r = size - 1; r >= 0; r--) {
            if (names[r] == name || Arrays.equals(names[r], name)) {
                if (last[r] + 1 == n) {
                    last[r] = n;
                    return this;
                }
                break;
            }
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            first = Arrays.copyOf(first, size * 2);
            last = Arrays.copyOf(last, size * 2);
        }
        names[size] = name;
        first[size] = n;
        last[size++] = n;
        return this;
    }

    public int size() {
        return size;
    }

    public byte[] name(final int r) {
        return names[r];
    }

    public long first(final int r) {
        return first[r];
    }

    public long last(final int r) {
        return last[r];
    }
}
