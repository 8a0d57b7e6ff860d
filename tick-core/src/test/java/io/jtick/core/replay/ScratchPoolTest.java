package io.jtick.core.replay;

import io.jtick.core.testing.LeakCheck;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class ScratchPoolTest {
    @TempDir
    Path dir;

    @Test
    void shouldGiveAKeptFileToTheNextDateWithinWhatWasInUseAtOnceAndUnmapIdleOnes() throws IOException {
        try (ScratchPool pool = new ScratchPool(dir.resolve(".replay"))) {
            final ScratchPool.Scratch a = pool.acquire("a", 80_000);
            final ScratchPool.Scratch b = pool.acquire("b", 10_000);
            try (var names = Files.list(dir.resolve(".replay"))) {
                assertThat(names).as("names unlinked at once").isEmpty();
            }
            UnsafeApi.putLong(null, a.address + 79_992, 42L);
            pool.release(a);
            pool.release(b);
            assertThat(pool.keptBytes()).isEqualTo(a.bytes + b.bytes);

            final ScratchPool.Scratch small = pool.acquire("c", 9_000);
            assertThat(small).as("the smallest kept file that fits").isSameAs(b);
            final ScratchPool.Scratch big = pool.acquire("d", 50_000);
            assertThat(big).isSameAs(a);
            assertThat(UnsafeApi.getLong(null, big.address + 79_992)).as("mapped all along: its pages kept").isEqualTo(42L);
            final ScratchPool.Scratch fresh = pool.acquire("e", 50_000);
            assertThat(fresh).isNotSameAs(a).isNotSameAs(b);
            assertThat(pool.reused()).isEqualTo(2);

            pool.release(fresh);
            pool.release(small);
            pool.release(big);
            assertThat(pool.keptBytes()).as("three in use at once: all three kept").isEqualTo(a.bytes + b.bytes + fresh.bytes);
            final long now = System.nanoTime();
            pool.trim(now);
            assertThat(pool.keptBytes()).as("released just now").isEqualTo(a.bytes + b.bytes + fresh.bytes);
            pool.trim(now + ScratchPool.KEEP_NANOS + 1);
            assertThat(pool.keptBytes()).as("idle past the keep time").isZero();

            final ScratchPool.Scratch one = pool.acquire("f", 1_000);
            pool.release(one);
            assertThat(pool.keptBytes()).as("within the new high-water mark").isEqualTo(1_000);
            final ScratchPool.Scratch larger = pool.acquire("g", 2_000);
            assertThat(larger).as("the kept one is too small").isNotSameAs(one);
            assertThat(pool.keptBytes()).as("1,000 kept and 2,000 new would pass the 2,000 ever in use at once: unmapped").isZero();
            pool.release(larger);
            assertThat(pool.keptBytes()).isEqualTo(2_000);
        }
    }

    @Test
    void shouldFreeWhatIsReleasedAfterClose() throws IOException {
        final ScratchPool pool = new ScratchPool(dir);
        final ScratchPool.Scratch s = pool.acquire("a", 4_096);
        pool.close();
        pool.release(s);
        assertThat(pool.keptBytes()).isZero();
    }
}
