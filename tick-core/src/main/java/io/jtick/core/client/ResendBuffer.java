package io.jtick.core.client;

import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * A numbered feed's updates the tickerplant has not acknowledged yet (protocol 2): each send's frames
 * get the feed's next numbers and are kept as one chunk in a ring ({@code ring}, {@code first[]},
 * {@code last[]}, {@code head}, {@code size}), bounded in bytes of memory held ({@code bufferedBytes}
 * against {@link FeedPublisher.Settings#bufferBytes}); FEED_ACK frees the chunks it covers, and the
 * answer to HELLO resends what follows it. Also holds the numbering: {@code nextNumber}, {@code acked}
 * and {@code numberingKnown} (the first HELLO answer said where the tickerplant's journal stands).
 *
 * <p>Not thread-safe: every call is made under the {@link FeedPublisher}'s monitor.
 */
final class ResendBuffer {
    private final long limitBytes;
    private ByteBuf[] ring = new ByteBuf[64];
    private long[] first = new long[64];
    private long[] last = new long[64];
    private int head;
    private int size;
    private long bufferedBytes;
    private long nextNumber = 1;
    private long acked;
    private boolean numberingKnown;

    ResendBuffer(final long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** The numbering is known and {@code bytes} more fit (a send larger than the limit fits an empty buffer). */
    boolean hasRoom(final int bytes) {
        return numberingKnown && (size == 0 || bufferedBytes + bytes <= limitBytes);
    }

    /** The numbering is known and the buffer is below its limit: a send could be taken. */
    boolean belowLimit() {
        return numberingKnown && (size == 0 || bufferedBytes < limitBytes);
    }

    boolean numberingKnown() {
        return numberingKnown;
    }

    /** Protocol 1: there is no numbering to wait for. */
    void unnumbered() {
        numberingKnown = true;
    }

    /** Numbers {@code count} whole frames in {@code frames} from {@code nextNumber} on and keeps them (owned from now on). */
    void add(final ByteBuf frames, final int count) {
        final long number = nextNumber;
        for (int off = frames.readerIndex(), end = frames.writerIndex(); off < end; off += frames.getIntLE(off)) {
            frames.setLongLE(off + FrameDescriptor.SEQUENCE_OFFSET, nextNumber++);
        }
        if (size == ring.length) {
            grow();
        }
        final int at = (head + size) % ring.length;
        ring[at] = frames;
        first[at] = number;
        last[at] = number + count - 1;
        size++;
        bufferedBytes += frames.capacity();
    }

    /** FEED_ACK {@code n} after the HELLO answer: frees what it covers; true when it was progress. */
    boolean acknowledge(final long n) {
        if (n <= acked) {
            return false;
        }
        acked = n;
        free(n);
        return true;
    }

    /** Where numbering starts from, after the first HELLO answer {@code n}; false when the TP holds more than this feed sent. */
    boolean helloAnswered(final long n) {
        if (!numberingKnown) {
            numberingKnown = true;
            if (n >= nextNumber) {
                final boolean fresh = nextNumber == 1;
                nextNumber = n + 1;
                return fresh;
            }
            return true;
        }
        return n < nextNumber;
    }

    /** The HELLO answer {@code n}: frees what it covers and writes (not flushes) every kept update after it; returns how many. */
    long resendAfter(final Channel ch, final long n) {
        acked = n;
        free(n);
        long sent = 0;
        for (int k = 0; k < size; k++) {
            final int at = (head + k) % ring.length;
            final ByteBuf buf = ring[at];
            if (first[at] > n) {
                ch.write(buf.retainedDuplicate(), ch.voidPromise());
                sent += last[at] - first[at] + 1;
            } else {
                int off = buf.readerIndex();
                for (long num = first[at]; num <= n; num++) {
                    off += buf.getIntLE(off);
                }
                ch.write(buf.retainedSlice(off, buf.writerIndex() - off), ch.voidPromise());
                sent += last[at] - n;
            }
        }
        return sent;
    }

    /** The number of the oldest kept update, or 0 when none is kept. */
    long oldest() {
        return size == 0 ? 0 : first[head];
    }

    /** The last number given to an update. */
    long lastNumber() {
        return nextNumber - 1;
    }

    long acked() {
        return acked;
    }

    /** Every update numbered so far is acknowledged. */
    boolean allAcknowledged() {
        return acked >= nextNumber - 1;
    }

    long updates() {
        return size == 0 ? 0 : nextNumber - first[head];
    }

    long bytes() {
        return bufferedBytes;
    }

    /** Releases everything kept (close). */
    void clear() {
        while (size > 0) {
            ring[head].release();
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
        bufferedBytes = 0;
    }

    /** Releases every chunk whose updates are all at or below {@code n}. */
    private void free(final long n) {
        while (size > 0 && last[head] <= n) {
            bufferedBytes -= ring[head].capacity();
            ring[head].release();
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
    }

    private void grow() {
        final int n = ring.length * 2;
        final ByteBuf[] r = new ByteBuf[n];
        final long[] f = new long[n];
        final long[] l = new long[n];
        for (int k = 0; k < size; k++) {
            final int from = (head + k) % ring.length;
            r[k] = ring[from];
            f[k] = first[from];
            l[k] = last[from];
        }
        ring = r;
        first = f;
        last = l;
        head = 0;
    }

    /** The number of whole UPDATE frames in {@code frames}. @throws IllegalArgumentException when it holds anything else */
    static int countFrames(final ByteBuf frames) {
        int n = 0;
        final int end = frames.writerIndex();
        int off = frames.readerIndex();
        while (off < end) {
            final int len = end - off >= 4 ? frames.getIntLE(off) : -1;
            if (len < FrameDescriptor.TABLE_NAME_OFFSET || off + len > end
                || frames.getUnsignedByte(off + FrameDescriptor.TYPE_OFFSET) != MessageType.UPDATE) {
                throw new IllegalArgumentException("not whole UPDATE frames [offset=" + (off - frames.readerIndex()) + ", length=" + len
                    + ", bytes=" + frames.readableBytes() + "]");
            }
            off += len;
            n++;
        }
        return n;
    }

    /**
     * What is kept is what memory it holds: a buffer much larger than its frames (a caller's generous
     * initial capacity) is copied into one that fits them, once, before it is kept.
     */
    static ByteBuf compact(final ByteBuf frames) {
        final int readable = frames.readableBytes();
        if (frames.capacity() - readable <= Math.max(4096, readable)) {
            return frames;
        }
        final ByteBuf fit = frames.alloc().directBuffer(readable, readable);
        fit.writeBytes(frames, frames.readerIndex(), readable);
        frames.release();
        return fit;
    }
}
