package io.jtick.core.rdb;

import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class ColumnCopierTest {
    private static final int N = 37;
    private static final int AT = 5;
    private static final int INDEX = 13;

    @Test
    void shouldUseRawCopiesOnThisPlatform() {
        // the build's JVM flags export jdk.internal.misc; without them the loop path would run
        assertThat(ColumnCopier.RAW).isTrue();
    }

    @Test
    void shouldCopyFromDirectBuffer() {
        checkAllTypes(() -> PooledByteBufAllocator.DEFAULT.directBuffer(1024), true);
    }

    @Test
    void shouldCopyFromHeapBuffer() {
        checkAllTypes(() -> PooledByteBufAllocator.DEFAULT.heapBuffer(1024), false);
    }

    @Test
    void shouldCopyFromCompositeBufferByLoop() {
        checkAllTypes(() -> {
            final CompositeByteBuf composite = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
            composite.addComponent(true, PooledByteBufAllocator.DEFAULT.directBuffer(300).writeZero(300));
            composite.addComponent(true, PooledByteBufAllocator.DEFAULT.heapBuffer(724).writeZero(724));
            composite.writerIndex(0);
            return composite;
        }, false);
    }

    @Test
    void shouldRemapAndCheckSymCodesFromEveryBufferKind() {
        final List<Supplier<ByteBuf>> kinds = List.of(() -> PooledByteBufAllocator.DEFAULT.directBuffer(1024),
            () -> PooledByteBufAllocator.DEFAULT.heapBuffer(1024), () -> {
                final CompositeByteBuf composite = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
                composite.addComponent(true, PooledByteBufAllocator.DEFAULT.directBuffer(30).writeZero(30));
                composite.addComponent(true, PooledByteBufAllocator.DEFAULT.heapBuffer(994).writeZero(994));
                return composite;
            });
        final int[] ids = {70, 71, 72, 73, 74, -1};
        for (final Supplier<ByteBuf> kind : kinds) {
            final ByteBuf buf = kind.get();
            try {
                for (int i = 0; i < N; i++) {
                    buf.setIntLE(INDEX + 4 * i, i % 5);
                }
                final int[] dst = new int[AT + N];
                assertThat(ColumnCopier.remap(buf, INDEX, dst, AT, N, ids, 5)).isTrue();
                for (int i = 0; i < N; i++) {
                    assertThat(dst[AT + i]).isEqualTo(70 + i % 5);
                }
                for (final int bad : new int[] {5, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                    buf.setIntLE(INDEX + 4 * 7, bad);
                    assertThat(ColumnCopier.remap(buf, INDEX, dst, AT, N, ids, 5)).as("code %d", bad).isFalse();
                }
            } finally {
                assertThat(buf.release()).isTrue();
            }
        }
    }

    @Test
    void shouldRejectBlocksOutsideBufferOrArray() {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64, 64);
        try {
            assertThatThrownBy(() -> ColumnCopier.copy(buf, 60, new long[4], 0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> ColumnCopier.copy(buf, 0, new long[4], 3, 2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> ColumnCopier.copy(buf, -1, new int[4], 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            assertThat(buf.release()).isTrue();
        }
    }

    private static void checkAllTypes(final Supplier<ByteBuf> alloc, final boolean expectAddress) {
        final Random rnd = new Random(42);
        final ByteBuf buf = alloc.get();
        try {
            if (expectAddress) {
                assertThat(buf.hasMemoryAddress()).isTrue();
            }
            buf.writerIndex(0);
            buf.writeZero(1024);
            final long[] longs = new long[N + AT];
            final double[] doubles = new double[N + AT];
            final int[] ints = new int[N + AT];
            final float[] floats = new float[N + AT];
            final short[] shorts = new short[N + AT];
            final byte[] bytes = new byte[N + AT];
            for (int i = 0; i < N * 8; i++) {
                buf.setByte(INDEX + i, rnd.nextInt());
            }
            ColumnCopier.copy(buf, INDEX, longs, AT, N);
            ColumnCopier.copy(buf, INDEX, doubles, AT, N);
            ColumnCopier.copy(buf, INDEX, ints, AT, N);
            ColumnCopier.copy(buf, INDEX, floats, AT, N);
            ColumnCopier.copy(buf, INDEX, shorts, AT, N);
            ColumnCopier.copy(buf, INDEX, bytes, AT, N);
            for (int i = 0; i < AT; i++) {
                assertThat(longs[i]).isZero();
                assertThat(ints[i]).isZero();
                assertThat(bytes[i]).isZero();
            }
            for (int i = 0; i < N; i++) {
                assertThat(longs[AT + i]).isEqualTo(buf.getLongLE(INDEX + i * 8));
                assertThat(Double.doubleToRawLongBits(doubles[AT + i])).isEqualTo(buf.getLongLE(INDEX + i * 8));
                assertThat(ints[AT + i]).isEqualTo(buf.getIntLE(INDEX + i * 4));
                assertThat(Float.floatToRawIntBits(floats[AT + i])).isEqualTo(buf.getIntLE(INDEX + i * 4));
                assertThat(shorts[AT + i]).isEqualTo(buf.getShortLE(INDEX + i * 2));
                assertThat(bytes[AT + i]).isEqualTo(buf.getByte(INDEX + i));
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
    }

    @Test
    void shouldCopyFromUnpooledWrappedArrayWithOffset() {
        final byte[] raw = new byte[64];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) i;
        }
        final ByteBuf whole = Unpooled.wrappedBuffer(raw);
        try {
            final ByteBuf slice = whole.slice(8, 32);
            assertThat(slice.hasArray()).isTrue();
            assertThat(slice.arrayOffset()).isEqualTo(8);
            final long[] dst = new long[2];
            ColumnCopier.copy(slice, 8, dst, 0, 2);
            assertThat(dst[0]).isEqualTo(slice.getLongLE(8));
            assertThat(dst[1]).isEqualTo(slice.getLongLE(16));
        } finally {
            assertThat(whole.release()).isTrue();
        }
    }
}
