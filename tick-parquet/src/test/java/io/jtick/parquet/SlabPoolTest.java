package io.jtick.parquet;

import org.apache.parquet.bytes.CapacityByteArrayOutputStream;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/** The slab pool: buffers of the size asked for, released arrays reused, and a values writer's stream over it. */
class SlabPoolTest {
    @Test
    void shouldReuseAReleasedArrayForASmallerSlab() {
        final SlabPool pool = new SlabPool();
        final ByteBuffer a = pool.allocate(1000);
        assertThat(a.capacity()).isEqualTo(1000);
        assertThat(a.position()).isZero();
        final byte[] array = a.array();
        pool.release(a);
        assertThat(pool.kept()).isEqualTo(1);
        final ByteBuffer b = pool.allocate(600);
        assertThat(b.array()).isSameAs(array);
        assertThat(b.capacity()).isEqualTo(600);
        assertThat(b.remaining()).isEqualTo(600);
        assertThat(pool.kept()).isZero();
        final ByteBuffer c = pool.allocate(2000);
        assertThat(c.array()).isNotSameAs(array);
    }

    @Test
    void shouldKeepTheLargestArraysWhenFull() {
        final SlabPool pool = new SlabPool();
        final ByteBuffer[] held = new ByteBuffer[40];
        for (int k = 0; k < held.length; k++) {
            held[k] = pool.allocate(100 + k);
        }
        for (final ByteBuffer b : held) {
            pool.release(b);
        }
        assertThat(pool.kept()).isEqualTo(32);
        assertThat(pool.allocate(139).array()).isSameAs(held[39].array());
        assertThat(pool.allocate(100).array().length).isGreaterThanOrEqualTo(108);
    }

    @Test
    void shouldHoldAStreamsBytesAcrossResets() throws Exception {
        final SlabPool pool = new SlabPool();
        final CapacityByteArrayOutputStream out = new CapacityByteArrayOutputStream(16, 1 << 20, pool);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 5000; i++) {
                out.write((i + round) & 0xFF);
            }
            final byte[] bytes = org.apache.parquet.bytes.BytesInput.from(out).toByteArray();
            assertThat(bytes).hasSize(5000);
            for (int i = 0; i < 5000; i++) {
                assertThat(bytes[i]).isEqualTo((byte) ((i + round) & 0xFF));
            }
            out.reset();
        }
        out.close();
        assertThat(pool.kept()).isPositive();
    }
}
