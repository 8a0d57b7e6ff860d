package io.jtick.parquet;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A Parquet {@link InputFile} over one open {@link FileChannel} that every reader of a table
 * shares: each stream keeps its own position and reads with positional reads, so any number of
 * queries read one file concurrently through one file descriptor, and a file deleted or swapped
 * out by the tiering job stays readable until the table's last reader lets it go. Closing a
 * stream leaves the channel open; the table closes it.
 */
final class ChannelInputFile implements InputFile {
    private final FileChannel channel;
    private final long length;

    ChannelInputFile(final FileChannel channel) throws IOException {
        this.channel = channel;
        this.length = channel.size();
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    /** One reader's position in the shared channel. */
    private final class Stream extends PositionedInputStream {
        Stream() {
            super(length);
        }

        @Override
        protected int readAt(final long position, final ByteBuffer dst) throws IOException {
            return channel.read(dst, position);
        }
    }
}
