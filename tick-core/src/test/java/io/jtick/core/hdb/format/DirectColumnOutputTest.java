package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.testing.LeakCheck;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class DirectColumnOutputTest {
    private static final int ALIGN = 4096;

    @TempDir
    Path dir;

    /**
     * The copy of the file's first block that {@link DirectColumnOutput#finish} writes again with the header: an allocation
     * that starts on a block has an aligned slice of two blocks, and the copy cleared to its capacity then wrote a second
     * block of zeros over the file's bytes [4096, 8192) (a sym column whose index outgrew its buffer, now and then).
     */
    @Test
    void shouldKeepTheCopyOfTheFirstBlockOneBlockLongWhereverItsAllocationStarts() {
        final ByteBuffer allocated = ByteBuffer.allocateDirect(3 * ALIGN); // its aligned slice is two or three blocks
        try {
            assertThat(allocated.alignedSlice(ALIGN).limit(ALIGN).clear().remaining()).isGreaterThan(ALIGN);
            final ByteBuffer head = DirectColumnOutput.oneBlock(allocated, ALIGN);
            assertThat(BufferUtil.address(head) % ALIGN).isZero();
            head.put(new byte[ALIGN]).clear();
            assertThat(head.remaining()).isEqualTo(ALIGN);
            assertThat(head.capacity()).isEqualTo(ALIGN);
        } finally {
            BufferUtil.free(allocated);
        }
    }

    /**
     * A file whose first buffer goes out before its end (an index larger than the file's expected size), written direct
     * many times while other direct memory comes and goes, so that the first block's copy sometimes starts on a block: the
     * same bytes as the buffered writer's every time.
     */
    @Test
    void shouldWriteTheSameBytesAsBufferedWhenTheFirstBlockGoesOutEarlyWhateverTheHeap() throws IOException {
        Assumptions.assumeTrue(directIo(), "the temporary directory's file system refuses O_DIRECT: " + dir);
        final int rows = 3000;
        final int blockRows = 1024;
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] values = new byte[rows * 4];
        for (int i = 0; i < values.length; i++) {
            values[i] = (byte) random.nextInt();
        }
        final Path buffered = dir.resolve("buffered");
        write(buffered, values, rows, blockRows, false);
        final List<ByteBuffer> others = new ArrayList<>();
        try {
            for (int i = 0; i < 1500; i++) {
                others.add(ByteBuffer.allocateDirect(16 * random.nextInt(1, 1200)));
                if (others.size() > 200) {
                    BufferUtil.free(others.remove(random.nextInt(others.size())));
                }
                final Path direct = dir.resolve("direct");
                write(direct, values, rows, blockRows, true);
                assertThat(Files.mismatch(buffered, direct)).as("write %s", i).isEqualTo(-1L);
                Files.delete(direct);
            }
        } finally {
            others.forEach(BufferUtil::free);
        }
    }

    /** Blocks of 10 rows (more index than the writer expects for its rows), plain int32. */
    private static void write(final Path file, final byte[] values, final int rows, final int blockRows, final boolean direct)
        throws IOException {
        try (ColumnFileWriter w = direct
            ? ColumnFileWriter.direct(file, ColumnType.INT32, ColumnEncoding.parse("none"), blockRows, rows, false, ALIGN, null)
            : new ColumnFileWriter(file, ColumnType.INT32, ColumnEncoding.parse("none"), blockRows, rows, false)) {
            for (int at = 0; at < rows; at += 10) {
                final int n = Math.min(10, rows - at);
                w.block().putBytes(0, values, at * 4, n * 4);
                w.writeBlock(n);
            }
            w.finish();
        }
    }

    private boolean directIo() {
        final Path probe = dir.resolve("probe");
        try (FileChannel c = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            final ByteBuffer allocated = ByteBuffer.allocateDirect(2 * ALIGN);
            try {
                c.write(allocated.alignedSlice(ALIGN).limit(ALIGN), 0);
            } finally {
                BufferUtil.free(allocated);
            }
            Files.delete(probe);
            return true;
        } catch (final IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
