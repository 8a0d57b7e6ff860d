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
    /** Bytes of one run of the runs form before its name: {@code int64 first, int64 last, uint8 nameLength}. */
    static final int RUN_HEADER = 17;
    /** The most bytes a trailer of one more run adds: its header and the longest name. */
    public static final int MAX_RUN_BYTES = RUN_HEADER + 255;

    private byte[][] names = new byte[4][];
    private long[] first = new long[4];
    private long[] last = new long[4];
    private int size;
    private long runBytes;

    /** Forgets every run. */
    public FeedRuns clear() {
        Arrays.fill(names, 0, size, null);
        size = 0;
        runBytes = 0;
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
        runBytes += RUN_HEADER + name.length;
        return this;
    }

    /** Bytes of the trailer these runs are journalled as, at most (the runs form; one number takes fewer). */
    public long trailerBytes() {
        return size == 0 ? 0 : 8 + runBytes;
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
