package io.jtick.parquet;

import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A Parquet stream that keeps only its own position and reads each range with a positional read
 * of its source ({@link #readAt}), so any number of streams read one file or object concurrently:
 * a local file's shared channel, or a cold object's cached ranged GETs. Closing it releases
 * nothing; the source belongs to the table.
 */
public abstract class PositionedInputStream extends SeekableInputStream {
    private final long length;
    private long pos;

    protected PositionedInputStream(final long length) {
        this.length = length;
    }

    /**
     * Reads bytes at {@code position} into {@code dst} from its position on: at least one when any
     * are left before the end, -1 at the end.
     */
    protected abstract int readAt(long position, ByteBuffer dst) throws IOException;

    @Override
    public final long getPos() {
        return pos;
    }

    @Override
    public final void seek(final long newPos) {
        pos = newPos;
    }

    @Override
    public final int read() throws IOException {
        final byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public final int read(final byte[] b, final int off, final int len) throws IOException {
        return read(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public final void readFully(final byte[] bytes) throws IOException {
        readFully(ByteBuffer.wrap(bytes));
    }

    @Override
    public final void readFully(final byte[] bytes, final int start, final int len) throws IOException {
        readFully(ByteBuffer.wrap(bytes, start, len));
    }

    @Override
    public final int read(final ByteBuffer buf) throws IOException {
        if (!buf.hasRemaining()) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        final int n = readAt(pos, buf);
        if (n > 0) {
            pos += n;
        }
        return n;
    }

    @Override
    public final void readFully(final ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (read(buf) < 0) {
                throw new EOFException("end of file at " + pos + " [length=" + length + "]");
            }
        }
    }

    @Override
    public void close() {
        // the source belongs to the table
    }
}
