package io.jtick.core.journal;

import io.jtick.core.testing.LeakCheck;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class JournalTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    private static void append(final Journal j, final long seq) {
        final ByteBuf f = TestSupport.tradeFrame(TRADE, seq, "A", "B");
        try {
            f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, seq);
            j.append(f, 0, f.readableBytes(), seq);
        } finally {
            f.release();
        }
    }

    @Test
    void shouldReplayEntriesAfterASequenceAndContinueAfterReopen() {
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            for (long s = 1; s <= 10; s++) {
                append(j, s);
            }
            assertThat(j.lastSequence()).isEqualTo(10);
        }
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM); JournalReader r = j.readerAfter(7)) {
            assertThat(j.firstSequence()).isEqualTo(1);
            assertThat(j.lastSequence()).isEqualTo(10);
            final ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer();
            try {
                assertThat(r.next(dst, 8)).isEqualTo(8);
                assertThat(r.next(dst, 8)).isEqualTo(JournalReader.LIMIT);
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(9);
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(10);
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(JournalReader.END);
                final int first = dst.getIntLE(0);
                assertThat(dst.getLongLE(first + FrameDescriptor.SEQUENCE_OFFSET)).isEqualTo(9);
            } finally {
                dst.release();
            }
            append(j, 11);
        }
        assertThat(Journal.lastSequenceBefore(root, DAY.plusDays(1))).isEqualTo(11);
        try (Journal next = Journal.open(root, DAY.plusDays(1), 11, NanoClock.SYSTEM)) {
            assertThat(next.firstSequence()).isEqualTo(12);
            assertThat(next.lastSequence()).isEqualTo(11);
        }
    }

    @Test
    void shouldSeekToTheEntryAfterAnySequenceAcrossGapsAndDailyCycles() throws Exception {
        // one trading day written across two UTC days: two Chronicle cycle files in one journal directory
        final AtomicLong now = new AtomicLong(Instant.parse("2026-11-20T23:59:00Z").toEpochMilli() * 1_000_000L);
        try (Journal j = Journal.open(root, DAY, 0, now::get)) {
            for (final long s : new long[] {10, 20, 30}) {
                append(j, s);
            }
            now.set(Instant.parse("2026-11-21T00:01:00Z").toEpochMilli() * 1_000_000L);
            for (final long s : new long[] {40, 50}) {
                append(j, s);
            }
            assertThat(files(root.resolve(DAY.toString())).keySet()).as("cycle files").filteredOn(n -> n.endsWith(".cq4")).hasSize(2);
            final long[][] expected = {{0, 10}, {5, 10}, {10, 20}, {15, 20}, {29, 30}, {30, 40}, {35, 40}, {40, 50}, {49, 50},
                {50, JournalReader.END}, {1000, JournalReader.END}};
            for (final long[] e : expected) {
                try (JournalReader writerSide = j.readerAfter(e[0]);
                     JournalReader readOnly = JournalReader.open(root, DAY, e[0])) {
                    assertThat(firstSequence(writerSide)).as("writer's reader after %d", e[0]).isEqualTo(e[1]);
                    assertThat(firstSequence(readOnly)).as("read-only reader after %d", e[0]).isEqualTo(e[1]);
                }
            }
            // a reader at the end reads what is appended later
            try (JournalReader r = j.readerAfter(50)) {
                assertThat(firstSequence(r)).isEqualTo(JournalReader.END);
                append(j, 60);
                assertThat(firstSequence(r)).isEqualTo(60);
            }
        }
    }

    @Test
    void shouldForceWhatIsAppendedOnceAcrossACycleRollAndSayWhenThereIsNothingToForce() throws Exception {
        final AtomicLong now = new AtomicLong(Instant.parse("2026-11-20T23:59:00Z").toEpochMilli() * 1_000_000L);
        try (Journal j = Journal.open(root, DAY, 0, now::get)) {
            assertThat(j.sync()).as("the first force covers what the files held at open, even when nothing was appended").isNotNegative();
            assertThat(j.sync()).as("nothing appended since").isEqualTo(-1);
            append(j, 1);
            append(j, 2);
            assertThat(j.sync()).as("one force for both entries").isNotNegative();
            assertThat(j.sync()).isEqualTo(-1);
            append(j, 3);
            now.set(Instant.parse("2026-11-21T00:01:00Z").toEpochMilli() * 1_000_000L);
            append(j, 4);
            assertThat(files(root.resolve(DAY.toString())).keySet()).filteredOn(n -> n.endsWith(".cq4")).hasSize(2);
            assertThat(j.sync()).as("the new cycle file and the tail of the old one").isNotNegative();
            assertThat(j.sync()).isEqualTo(-1);
        }
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM); JournalReader r = j.readerAfter(0)) {
            assertThat(j.lastSequence()).isEqualTo(4);
            assertThat(firstSequence(r)).as("forcing changed nothing a reader sees").isEqualTo(1);
        }
    }

    private static long firstSequence(final JournalReader r) {
        final ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            return r.next(dst, Long.MAX_VALUE);
        } finally {
            dst.release();
        }
    }

    @Test
    void shouldOpenReadersReadOnlyCreatingAndChangingNothing() throws Exception {
        assertThatThrownBy(() -> JournalReader.open(root, DAY, 0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("date=" + DAY);
        assertThat(root.resolve(DAY.toString())).doesNotExist();
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            try (JournalReader empty = JournalReader.open(root, DAY, 0)) {
                assertThat(firstSequence(empty)).isEqualTo(JournalReader.END);
            }
            append(j, 1);
            append(j, 2);
            final Map<String, String> files = files(root.resolve(DAY.toString()));
            try (JournalReader r = JournalReader.open(root, DAY, 0)) {
                assertThat(firstSequence(r)).isEqualTo(1);
                assertThat(firstSequence(r)).isEqualTo(2);
                assertThat(firstSequence(r)).isEqualTo(JournalReader.END);
                assertThat(files(root.resolve(DAY.toString()))).as("files, sizes and times while reading").isEqualTo(files);
                append(j, 3);
                assertThat(firstSequence(r)).as("an entry the writer appends meanwhile").isEqualTo(3);
            }
        }
        assertThat(Journal.lastSequenceBefore(root, DAY.plusDays(1))).isEqualTo(3);
    }

    private static Map<String, String> files(final Path dir) throws Exception {
        final Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (final Path p : (Iterable<Path>) s::iterator) {
                m.put(p.getFileName().toString(), Files.size(p) + "@" + Files.getLastModifiedTime(p));
            }
        }
        return m;
    }

    @Test
    void shouldWriteNothingOfAnAppendThatFails() {
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            append(j, 1);
            final ByteBuf f = TestSupport.tradeFrame(TRADE, 2, "A");
            try {
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, 2);
                assertThatThrownBy(() -> j.append(f, 0, f.capacity() + 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThat(j.lastSequence()).isEqualTo(1);
                j.append(f, 0, f.readableBytes(), 2);
            } finally {
                f.release();
            }
            try (JournalReader r = j.readerAfter(0)) {
                assertThat(firstSequence(r)).isEqualTo(1);
                assertThat(firstSequence(r)).isEqualTo(2);
                assertThat(firstSequence(r)).isEqualTo(JournalReader.END);
            }
        }
    }

    @Test
    void shouldRefuseToOpenAJournalWhoseLastEntryIsCorruptAndSayHowToRecover() {
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            append(j, 1);
        }
        try (ChronicleQueue q = ChronicleQueue.singleBuilder(root.resolve(DAY.toString())).rollCycle(RollCycles.FAST_DAILY).build();
             ExcerptAppender a = q.createAppender()) {
            a.writeBytes(b -> b.write(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50}));
        }
        assertThatThrownBy(() -> Journal.open(root, DAY, 0, NanoClock.SYSTEM))
            .isInstanceOf(JournalCorruptException.class)
            .hasMessageContaining(root.resolve(DAY.toString()).toString())
            .hasMessageContaining("./jtick journal repair " + DAY);
    }

    @Test
    void shouldKeepEachEntrysFeedRunsForTheStartUpScanAndHandOutTheFrameOnly() {
        final byte[] md1 = "md-1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        final byte[] md2 = "md-2".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        final int frameLength;
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            final ByteBuf f = TestSupport.tradeFrame(TRADE, 1, "A", "B");
            try {
                frameLength = f.readableBytes();
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, 1);
                j.append(f, 0, frameLength, 1, new FeedRuns().add(md1, 7));
                // a timer batch merged into one entry: md-1's 8..10 with md-2's 3..4 between, then md-1's 12 after a gap
                final FeedRuns runs = new FeedRuns().add(md1, 8).add(md2, 3).add(md1, 9).add(md2, 4).add(md1, 10).add(md1, 12);
                assertThat(runs.size()).as("8..10, 3..4, 12").isEqualTo(3);
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, 2);
                j.append(f, 0, frameLength, 2, runs);
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, 3);
                j.append(f, 0, frameLength, 3, new FeedRuns());
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, 4);
                assertThatThrownBy(() -> j.append(f, 0, frameLength, 4, new FeedRuns().add(new byte[0], 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..255");
                assertThat(j.lastSequence()).isEqualTo(3);
            } finally {
                f.release();
            }
        }
        final java.util.List<String> scanned = new java.util.ArrayList<>();
        Journal.scanFeeds(root, DAY, (feed, first, last) -> scanned.add(feed + ":" + first + ".." + last));
        assertThat(scanned).containsExactly("md-1:7..7", "md-1:8..10", "md-2:3..4", "md-1:12..12");
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM); JournalReader r = j.readerAfter(0)) {
            final ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer();
            try {
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(1);
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(2);
                assertThat(r.next(dst, Long.MAX_VALUE)).isEqualTo(3);
                assertThat(dst.readableBytes()).as("frames only, no trailers").isEqualTo(3 * frameLength);
            } finally {
                dst.release();
            }
        }
        final JournalRepair.Report report = JournalRepair.check(root, DAY);
        assertThat(report.problem()).as("every trailer form is a valid entry").isNull();
        assertThat(report.kept()).isEqualTo(3);
    }

    @Test
    void shouldPretouchPagesAheadWithoutChangingWhatTheJournalHolds() {
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            assertThat(j.pretouch(16)).as("pages ahead of the first entry").isEqualTo(16);
            append(j, 1);
            int total = 0;
            for (int k = 0; k < 100; k++) {
                total += j.pretouch(16);
            }
            assertThat(total).as("stops once 1 MB ahead is touched").isLessThanOrEqualTo((int) (Journal.PRETOUCH_BYTES / 4096));
            assertThat(j.pretouch(16)).isZero();
            for (long s = 2; s <= 200; s++) {
                append(j, s);
                j.pretouch(4);
            }
            assertThat(j.lastSequence()).isEqualTo(200);
        }
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM); JournalReader r = j.readerAfter(0)) {
            assertThat(j.lastSequence()).isEqualTo(200);
            for (long s = 1; s <= 200; s++) {
                assertThat(firstSequence(r)).isEqualTo(s);
            }
            assertThat(firstSequence(r)).isEqualTo(JournalReader.END);
        }
        assertThat(JournalRepair.check(root, DAY).problem()).isNull();
        assertThat(JournalRepair.check(root, DAY).kept()).isEqualTo(200);
    }
}
