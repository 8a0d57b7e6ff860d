package io.jtick.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;

import java.nio.ByteBuffer;

/**
 * A heap {@link ByteBufferAllocator} that keeps the arrays its buffers release for the next
 * allocations, for the values writers of one encoding thread: parquet-java's writers release
 * their slabs on every page ({@code reset}) and take new ones for the next, which through
 * {@code HeapByteBufferAllocator} allocated (and zeroed) about as many bytes as the values
 * encoded. A buffer is a slice of exactly the size asked for over an array of at least that
 * size; released arrays wait in a short list, the smallest that fits is reused, and the list
 * drops its smallest array when full. Not thread-safe: one per encoding thread.
 */
final class SlabPool implements ByteBufferAllocator {
    /** Arrays kept at most: a page's slabs of the few writers one column chunk uses. */
    private static final int KEPT = 32;
    private final byte[][] free = new byte[KEPT][];
    private int count;

    @Override
    public ByteBuffer allocate(final int size) {
        int best = -1;
        for (int k = 0; k < count; k++) {
            if (free[k].length >= size && (best < 0 || free[k].length < free[best].length)) {
                best = k;
            }
        }
        final byte[] array;
        if (best < 0) {
            array = new byte[size];
        } else {
            array = free[best];
            free[best] = free[--count];
            free[count] = null;
        }
        return ByteBuffer.wrap(array, 0, size).slice();
    }

    @Override
    public void release(final ByteBuffer b) {
        if (!b.hasArray() || b.arrayOffset() != 0) {
            return;
        }
        final byte[] array = b.array();
        if (count == KEPT) {
            int smallest = 0;
            for (int k = 1; k < count; k++) {
                if (free[k].length < free[smallest].length) {
                    smallest = k;
                }
            }
            if (free[smallest].length >= array.length) {
                return;
            }
            free[smallest] = array;
            return;
        }
        free[count++] = array;
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    /** Arrays waiting for reuse (for tests). */
    int kept() {
        return count;
    }
}
