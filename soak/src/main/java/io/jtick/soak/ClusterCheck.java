package io.jtick.soak;

import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The end-of-run check of a tickerplant cluster's journals, read after the nodes stopped: every node
 * holds the same entries in the same order (sequence, length and CRC-32C of the frame bytes, entry by
 * entry); within each journal no sequence is issued twice (they grow strictly); and every update the
 * numbered feed had acknowledged, 1 to {@code acked}, is in each journal exactly once (the journals' feed
 * trailers, {@link Journal#scanFeeds}).
 */
public final class ClusterCheck {
    private static final int SHOW = 10;

    private ClusterCheck() {
    }

    /**
     * What was found.
     *
     * @param entries          entries per node
     * @param lastSequence     last sequence per node
     * @param identical        every node's entries equal node 0's
     * @param reissued         entries, over all nodes, whose sequence is not above the one before
     * @param ackedMissing     acknowledged numbers missing, over all nodes
     * @param ackedDuplicates  numbers journalled more than once, over all nodes
     * @param feeds            names of the numbered feeds in the trailers
     */
    public record Result(long acked, long[] entries, long[] lastSequence, boolean identical, long reissued, long ackedMissing,
                         long ackedDuplicates, List<String> feeds, List<String> examples) {
        public boolean ok() {
            return identical && reissued == 0 && ackedMissing == 0 && ackedDuplicates == 0 && entries.length > 0 && entries[0] > 0;
        }

        public String text() {
            return String.format(Locale.ROOT, "journals: nodes=%d entries=%s lastSequence=%s identical=%s reissuedSequences=%d "
                    + "acked=%,d ackedMissing=%d ackedDuplicates=%d feeds=%s ok=%s%s", entries.length, Arrays.toString(entries),
                Arrays.toString(lastSequence), identical, reissued, acked, ackedMissing, ackedDuplicates, feeds, ok(),
                examples.isEmpty() ? "" : " examples=" + examples);
        }
    }

    /** Reads each node's journal (by member id) and checks them against each other and against the feed's {@code acked}. */
    public static Result check(final List<Path> journalRoots, final long acked) {
        if (acked > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("too many updates to check [acked=" + acked + "]");
        }
        final List<String> examples = new ArrayList<>();
        final List<Entries> nodes = new ArrayList<>();
        long reissued = 0;
        long missing = 0;
        long duplicates = 0;
        final List<String> feedNames = new ArrayList<>();
        for (int k = 0; k < journalRoots.size(); k++) {
            final Entries e = read(journalRoots.get(k));
            nodes.add(e);
            for (int i = 1; i < e.size; i++) {
                if (e.sequence[i] <= e.sequence[i - 1]) {
                    reissued++;
                    example(examples, "node " + k + " sequence " + e.sequence[i] + " after " + e.sequence[i - 1]);
                }
            }
            final Map<String, BitSet> numbers = new HashMap<>();
            final long[] dup = {0};
            final int node = k;
            for (final LocalDate day : days(journalRoots.get(k))) {
                Journal.scanFeeds(journalRoots.get(k), day, (feed, first, last) -> {
                    final BitSet seen = numbers.computeIfAbsent(feed, f -> new BitSet((int) acked + 1));
                    for (long n = first; n <= last; n++) {
                        if (n >= 0 && n < Integer.MAX_VALUE && seen.get((int) n)) {
                            dup[0]++;
                            example(examples, "node " + node + " feed " + feed + " number " + n + " journalled twice");
                        } else if (n >= 0 && n < Integer.MAX_VALUE) {
                            seen.set((int) n);
                        }
                    }
                });
            }
            duplicates += dup[0];
            // the feed's numbers: the one name that holds the most of them (a soak runs one numbered feed)
            BitSet best = new BitSet();
            for (final Map.Entry<String, BitSet> f : numbers.entrySet()) {
                if (!feedNames.contains(f.getKey())) {
                    feedNames.add(f.getKey());
                }
                if (f.getValue().cardinality() > best.cardinality()) {
                    best = f.getValue();
                }
            }
            int shown = 0;
            for (int n = best.nextClearBit(1); n <= acked; n = best.nextClearBit(n + 1)) {
                missing++;
                if (shown++ < 3) {
                    example(examples, "node " + k + " acknowledged number " + n + " not journalled");
                }
            }
        }
        boolean identical = true;
        final Entries first = nodes.isEmpty() ? new Entries() : nodes.get(0);
        for (int k = 1; k < nodes.size(); k++) {
            final Entries e = nodes.get(k);
            final int n = Math.min(first.size, e.size);
            for (int i = 0; i < n; i++) {
                if (first.sequence[i] != e.sequence[i] || first.length[i] != e.length[i] || first.crc[i] != e.crc[i]) {
                    identical = false;
                    example(examples, String.format(Locale.ROOT,
                        "node %d entry %d differs from node 0's: sequence %d/%d length %d/%d crc %x/%x",
                        k, i, e.sequence[i], first.sequence[i], e.length[i], first.length[i], e.crc[i], first.crc[i]));
                    break;
                }
            }
            if (first.size != e.size) {
                identical = false;
                example(examples, "node " + k + " holds " + e.size + " entries, node 0 " + first.size);
            }
        }
        final long[] counts = new long[nodes.size()];
        final long[] last = new long[nodes.size()];
        for (int k = 0; k < nodes.size(); k++) {
            counts[k] = nodes.get(k).size;
            last[k] = nodes.get(k).size == 0 ? 0 : nodes.get(k).sequence[nodes.get(k).size - 1];
        }
        return new Result(acked, counts, last, identical, reissued, missing, duplicates, feedNames, examples);
    }

    /** One node's entries in journal order, day after day. */
    private static Entries read(final Path root) {
        final Entries out = new Entries();
        final ByteBuf frame = Unpooled.buffer(1 << 16);
        final CRC32C crc = new CRC32C();
        try {
            for (final LocalDate day : days(root)) {
                try (JournalReader r = JournalReader.open(root, day, 0)) {
                    while (true) {
                        frame.clear();
                        final long sequence = r.next(frame, Long.MAX_VALUE);
                        if (sequence < 0) {
                            break;
                        }
                        crc.reset();
                        crc.update(frame.nioBuffer());
                        out.add(sequence, frame.readableBytes(), (int) crc.getValue());
                    }
                }
            }
        } finally {
            frame.release();
        }
        return out;
    }

    private static List<LocalDate> days(final Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (var s = Journal.days(root)) {
            return s.sorted().toList();
        }
    }

    private static void example(final List<String> examples, final String e) {
        if (examples.size() < SHOW) {
            examples.add(e);
        }
    }

    /** Growable columns: sequence, frame length, frame CRC. */
    private static final class Entries {
        long[] sequence = new long[1024];
        int[] length = new int[1024];
        int[] crc = new int[1024];
        int size;

        void add(final long s, final int len, final int c) {
            if (size == sequence.length) {
                sequence = Arrays.copyOf(sequence, size * 2);
                length = Arrays.copyOf(length, size * 2);
                crc = Arrays.copyOf(crc, size * 2);
            }
            sequence[size] = s;
            length[size] = len;
            crc[size] = c;
            size++;
        }
    }
}
