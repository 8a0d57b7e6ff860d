package io.jtick.parquet;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
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
    private final class Stream extends SeekableInputStream {
        private long pos;

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(final long newPos) {
            pos = newPos;
        }

        @Override
        public int read() throws IOException {
            final byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException {
            return read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        public void readFully(final byte[] bytes) throws IOException {
            readFully(ByteBuffer.wrap(bytes));
        }

        @Override
        public void readFully(final byte[] bytes, final int start, final int len) throws IOException {
            readFully(ByteBuffer.wrap(bytes, start, len));
        }

        @Override
        public int read(final ByteBuffer buf) throws IOException {
            if (!buf.hasRemaining()) {
                return 0;
            }
            final int n = channel.read(buf, pos);
            if (n > 0) {
                pos += n;
            }
            return n;
        }

        @Override
        public void readFully(final ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                if (read(buf) < 0) {
                    throw new EOFException("end of file at " + pos + " [length=" + length + "]");
                }
            }
        }

        @Override
        public void close() {
            // the channel belongs to the table
        }
    }
}
