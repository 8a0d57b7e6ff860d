package io.jtick.core.journal;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Repairs of real Chronicle files damaged the ways a disk or a crash damages them: bytes garbled in an
 * entry, in Chronicle's own entry header, and the data file cut short (inside a page, so the rest reads
 * as zeros, and at a page boundary, so reading it faults).
 */
@ExtendWith(LeakCheck.class)
class JournalRepairTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final byte[] FEED = "md-1".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path root;

    /** Entries 1..n; the even ones carry feed md-1's trailer with number sequence/2. */
    private void write(final int n) {
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            for (long s = 1; s <= n; s++) {
                final ByteBuf f = TestSupport.tradeFrame(TRADE, s, "A", "B");
                try {
                    f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, s);
                    j.append(f, 0, f.readableBytes(), s, s % 2 == 0 ? new FeedRuns().add(FEED, s / 2) : null);
                } finally {
                    f.release();
                }
            }
        }
    }

    private Path dataFile() throws IOException {
        try (Stream<Path> s = Files.list(root.resolve(DAY.toString()))) {
            return s.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    /** File offset of the frame carrying {@code sequence} (its length field). */
    private long frameOffset(final long sequence) throws IOException {
        final byte[] head = new byte[4 << 20];
        try (RandomAccessFile f = new RandomAccessFile(dataFile().toFile(), "r")) {
            f.readFully(head, 0, (int) Math.min(head.length, f.length()));
        }
        for (int i = 4; i + 12 <= head.length; i++) {
            if (head[i] == FrameDescriptor.VERSION && head[i + 1] == 3 && head[i + 2] == 0 && head[i + 3] == 0
                && readLong(head, i + 4) == sequence) {
                return i - 4;
            }
        }
        throw new AssertionError("frame not found [sequence=" + sequence + "]");
    }

    private static long readLong(final byte[] b, final int at) {
        long v = 0;
        for (int k = 7; k >= 0; k--) {
            v = v << 8 | (b[at + k] & 0xff);
        }
        return v;
    }

    private void overwrite(final long offset, final byte... bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(dataFile().toFile(), "rw")) {
            f.seek(offset);
            f.write(bytes);
        }
    }

    private List<Long> sequences() {
        final List<Long> out = new ArrayList<>();
        final ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer();
        try (JournalReader r = JournalReader.open(root, DAY, 0)) {
            long s;
            while ((s = r.next(dst.clear(), Long.MAX_VALUE)) > 0) {
                out.add(s);
            }
        } finally {
            dst.release();
        }
        return out;
    }

    private static List<Long> range(final long from, final long to) {
        final List<Long> out = new ArrayList<>();
        for (long s = from; s <= to; s++) {
            out.add(s);
        }
        return out;
    }

    private void assertRepairedAfter(final JournalRepair.Report r, final long lastValid) throws IOException {
        assertThat(r.valid()).isFalse();
        assertThat(r.kept()).isEqualTo(lastValid);
        assertThat(r.lastSequence()).isEqualTo(lastValid);
        assertThat(r.movedTo()).isDirectory();
        assertThat(r.movedTo().getFileName().toString()).startsWith(DAY + ".corrupt-");
        assertThat(Files.readString(r.movedTo().resolve(JournalRepair.REPORT_FILE))).isEqualTo(r.text())
            .contains("kept: " + lastValid + " entries");
        assertThat(Journal.days(root)).as("the moved day is not a journal day").containsExactly(DAY);
        assertThat(sequences()).isEqualTo(range(1, lastValid));
        final List<String> trailers = new ArrayList<>();
        Journal.scanFeeds(root, DAY, (feed, first, last) -> trailers.add(feed + ":" + first + (last == first ? "" : ".." + last)));
        assertThat(trailers).as("feed trailers kept").hasSize((int) lastValid / 2).last().isEqualTo("md-1:" + lastValid / 2);
        try (Journal j = Journal.open(root, DAY, 0, NanoClock.SYSTEM)) {
            assertThat(j.lastSequence()).as("the tickerplant numbers on after the last valid entry").isEqualTo(lastValid);
            final ByteBuf f = TestSupport.tradeFrame(TRADE, lastValid + 1, "C");
            try {
                f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, lastValid + 1);
                j.append(f, 0, f.readableBytes(), lastValid + 1);
            } finally {
                f.release();
            }
        }
        assertThat(sequences()).isEqualTo(range(1, lastValid + 1));
        assertThat(JournalRepair.check(root, DAY).valid()).isTrue();
    }

    @Test
    void shouldKeepEveryValidEntryAndMoveAGarbledTailAsideWithAReport() throws Exception {
        write(100);
        // column 2 (price) of entry 91 claims another type: its header is fine, its body is not
        // (name "trade" padded to 8, then time: header + 2 rows, sym: header + 2 codes, then price's type code)
        overwrite(frameOffset(91) + FrameDescriptor.TABLE_NAME_OFFSET + 8 + (8 + 16) + (8 + 8), (byte) 77);
        assertThatCode(() -> Journal.open(root, DAY, 0, NanoClock.SYSTEM).close()).as("its last entry is fine: the journal opens")
            .doesNotThrowAnyException();
        final JournalRepair.Report dry = JournalRepair.check(root, DAY);
        assertThat(dry.kept()).isEqualTo(90);
        assertThat(dry.problem()).contains("wrong column type");
        assertThat(dry.movedTo()).isNull();
        assertThat(sequences()).as("a check changes nothing").hasSize(100);

        final JournalRepair.Report r = JournalRepair.repair(root, DAY);
        assertThat(r.dropped()).as("the bad entry and the nine after it").isEqualTo(10);
        assertThat(r.droppedFrom()).isEqualTo(91);
        assertThat(r.droppedTo()).isEqualTo(100);
        assertRepairedAfter(r, 90);
    }

    @Test
    void shouldRepairAGarbledEntryHeaderThatTheTickerplantRefusesToStartOn() throws Exception {
        write(50);
        // Chronicle's 4-byte header of the last entry (just before the frame) claims 65535 bytes
        overwrite(frameOffset(50) - 4, (byte) 0xff, (byte) 0xff, (byte) 0, (byte) 0);
        assertThatThrownBy(() -> Journal.open(root, DAY, 0, NanoClock.SYSTEM)).isInstanceOf(JournalCorruptException.class)
            .hasMessageContaining("./jtick journal repair " + DAY);
        assertRepairedAfter(JournalRepair.repair(root, DAY), 49);
    }

    @Test
    void shouldRepairADataFileCutInsideTheLastEntry() throws Exception {
        write(41);
        final long cut = frameOffset(41) + 60;
        try (RandomAccessFile f = new RandomAccessFile(dataFile().toFile(), "rw")) {
            f.setLength(cut); // within a page: the rest of the entry reads back as zeros
        }
        final JournalRepair.Report r = JournalRepair.repair(root, DAY);
        assertThat(r.problem()).as("its header survived; its columns and dictionary did not").contains("not a whole update frame");
        assertRepairedAfter(r, 40);
    }

    @Test
    void shouldRepairADataFileCutAtAPageBoundaryBeforeItsLastEntries() throws Exception {
        write(200);
        final long cut = (frameOffset(180) + 4096) / 4096 * 4096 - 4096;
        try (RandomAccessFile f = new RandomAccessFile(dataFile().toFile(), "rw")) {
            f.setLength(cut); // what lies past it cannot be read at all
        }
        final JournalRepair.Report r = JournalRepair.repair(root, DAY);
        assertThat(r.kept()).isBetween(150L, 180L);
        assertRepairedAfter(r, r.kept());
    }

    @Test
    void shouldLeaveAValidDayAsItIsAndSayWhyOnTheCommandLine() throws Exception {
        write(10);
        final JournalRepair.Report r = JournalRepair.repair(root, DAY);
        assertThat(r.valid()).isTrue();
        assertThat(r.movedTo()).isNull();
        assertThat(sequences()).isEqualTo(range(1, 10));

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(JournalRepair.cli(new String[] {"journal", "repair", DAY.toString(), "--dir", root.toString()},
            new PrintStream(out), new PrintStream(err))).isZero();
        assertThat(out.toString()).contains("valid: 10 entries, sequences 1..10 (nothing to repair)");
        assertThat(JournalRepair.cli(new String[] {"journal", "repair", "2026-13-01"}, new PrintStream(out), new PrintStream(err)))
            .isEqualTo(2);
        assertThat(JournalRepair.cli(new String[] {"journal", "repair", "2026-11-19", "--dir", root.toString()}, new PrintStream(out),
            new PrintStream(err))).isEqualTo(1);
        assertThat(err.toString()).contains("not a date [day=2026-13-01]").contains("no journal for that day");
    }
}
