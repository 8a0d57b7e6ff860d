package io.jtick.core.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Whether an entry written through Chronicle's memory-mapped file reached the file. A store into a
 * page the volume cannot allocate (a full disk) faults, and in compiled code the JVM carries on as if
 * it had happened and reports the fault later, in other code: Java 17 was seen to drop a thousand such
 * stores in a row before reporting one, so an entry could be committed and acknowledged with bytes
 * that never reached its pages. Before committing an entry whose pages were not touched ahead with
 * room to spare, the journal reads the entry's last 8 bytes from the file itself ({@code pread}, not
 * through the mapping: a page that was never allocated reads as zeros) and compares them with what it
 * wrote; with the free-space guard on ({@code tick.tp.journal-min-free-space}) the guard keeps that room
 * and nothing is read. Pages fill in order, so a volume that ran out inside the entry fails its last page.
 * Same thread as appends.
 */
final class LandedCheck implements AutoCloseable {
    private final ByteBuffer tail = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private Path file;
    private FileChannel channel;

    /**
     * True when the 8 bytes of {@code file} before {@code end} (a position of the mapped file, which is
     * its offset in the file) are {@code expected}, read as a little-endian long.
     */
    boolean landed(final Path file, final long end, final long expected) throws IOException {
        if (!file.equals(this.file)) {
            close();
            channel = FileChannel.open(file, StandardOpenOption.READ);
            this.file = file;
        }
        tail.clear();
        long at = end - Long.BYTES;
        while (tail.hasRemaining()) {
            if (channel.read(tail, at) < 0) {
                return false;
            }
            at = end - tail.remaining();
        }
        return tail.getLong(0) == expected;
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException e) {
                // read-only: nothing to lose
            }
            channel = null;
            file = null;
        }
    }
}
