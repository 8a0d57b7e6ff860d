package io.jtick.core.journal;

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
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.LocalDate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(Journal.lastSequenceBefore(root, DAY.plusDays(1), NanoClock.SYSTEM)).isEqualTo(11);
        try (Journal next = Journal.open(root, DAY.plusDays(1), 11, NanoClock.SYSTEM)) {
            assertThat(next.firstSequence()).isEqualTo(12);
            assertThat(next.lastSequence()).isEqualTo(11);
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
            .hasMessageContaining("mv ");
    }
}
