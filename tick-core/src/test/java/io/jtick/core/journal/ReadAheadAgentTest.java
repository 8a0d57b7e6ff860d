package io.jtick.core.journal;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** The file is read a window ahead of what the appender wrote, into the page cache, and not past it; the thread ends with close. */
@ExtendWith(LeakCheck.class)
class ReadAheadAgentTest {
    private static final long FILE_BYTES = 64L << 20;

    @TempDir
    Path dir;

    @Test
    void shouldReadTheWindowAheadOfTheWritePositionIntoThePageCache() throws Exception {
        final Path file = sparse("a.cq4", FILE_BYTES);
        try (ReadAheadAgent agent = new ReadAheadAgent("test")) {
            assertThat(agent.wants(0)).as("the first append").isTrue();
            agent.request(file, 3L << 20);
            awaitReadUntil(agent, (3L << 20) + ReadAheadAgent.WINDOW_BYTES);
            assertThat(agent.wants((3L << 20) + 4096)).isFalse();
            assertThat(resident(file, 4L << 20, 4L << 20)).as("the window, read ahead").isTrue();
            assertThat(resident(file, 40L << 20, 1L << 20)).as("far past the window").isFalse();

            agent.request(file, 36L << 20);
            awaitReadUntil(agent, (36L << 20) + ReadAheadAgent.WINDOW_BYTES);
            assertThat(resident(file, 40L << 20, 1L << 20)).as("the next window").isTrue();
            assertThat(agent.wants((36L << 20) + ReadAheadAgent.WINDOW_BYTES / 2 - 1)).isFalse();
            assertThat(agent.wants((36L << 20) + ReadAheadAgent.WINDOW_BYTES / 2)).as("half a window on").isTrue();
            assertThat(agent.wants(4096)).as("back at the start of a new cycle file").isTrue();
        }
        assertThat(Files.size(file)).as("reading gives the file nothing").isEqualTo(FILE_BYTES);
    }

    @Test
    void shouldStopAtTheEndOfTheFileAndFollowTheNextFile() throws Exception {
        final Path first = sparse("a.cq4", 2L << 20);
        final Path second = sparse("b.cq4", FILE_BYTES);
        try (ReadAheadAgent agent = new ReadAheadAgent("test")) {
            agent.request(first, 1L << 20);
            awaitReadUntil(agent, 2L << 20);
            agent.request(second, 0);
            awaitReadUntil(agent, ReadAheadAgent.WINDOW_BYTES);
            assertThat(resident(second, 0, ReadAheadAgent.WINDOW_BYTES)).isTrue();
        }
    }

    @Test
    void shouldDoNothingForNoFileOrAfterClose() throws Exception {
        final Path file = sparse("a.cq4", FILE_BYTES);
        final ReadAheadAgent agent = new ReadAheadAgent("test");
        agent.request(null, 0);
        agent.close();
        agent.request(file, 0);
        assertThat(agent.readUntil()).isZero();
        assertThat(resident(file, 0, 1L << 20)).isFalse();
    }

    private Path sparse(final String name, final long bytes) throws Exception {
        final Path f = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        return f;
    }

    /** Whether every page of the range is in the page cache ({@code mincore} of a fresh mapping). */
    private static boolean resident(final Path file, final long at, final long bytes) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, at, bytes);
            return m.isLoaded();
        }
    }

    private static void awaitReadUntil(final ReadAheadAgent agent, final long until) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (agent.readUntil() < until) {
            assertThat(System.nanoTime()).as("read up to " + until + ", got " + agent.readUntil()).isLessThan(deadline);
            LockSupport.parkNanos(1_000_000);
        }
    }
}
