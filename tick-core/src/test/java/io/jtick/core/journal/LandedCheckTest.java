package io.jtick.core.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The file's own bytes, read past the mapping: what was written is found, a page never written reads as zeros. */
class LandedCheckTest {
    @TempDir
    Path dir;

    @Test
    void shouldFindTheLastBytesWrittenAndNotThoseOfAPageNeverWritten() throws Exception {
        final Path file = dir.resolve("cycle.cq4");
        final long value = 0x1122334455667788L;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(1 << 20); // sparse: only the first page is written
            f.write(ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN).putLong(4088, value).array());
        }
        try (LandedCheck check = new LandedCheck()) {
            assertThat(check.landed(file, 4096, value)).isTrue();
            assertThat(check.landed(file, 4096, value + 1)).isFalse();
            assertThat(check.landed(file, 3 * 4096, value)).as("a hole reads as zeros").isFalse();
            assertThat(check.landed(file, 3 * 4096, 0)).isTrue();
            assertThat(check.landed(file, (1 << 20) + 8, value)).as("past the end of the file").isFalse();
        }
    }
}
