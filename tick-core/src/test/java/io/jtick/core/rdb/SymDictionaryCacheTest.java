package io.jtick.core.rdb;

import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class SymDictionaryCacheTest {
    private final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
    private final SymbolCatalog catalog = new SymbolCatalog();
    private final SymDictionaryCache cache = new SymDictionaryCache();

    @AfterEach
    void release() {
        assertThat(buf.release()).isTrue();
    }

    /** A one-row trade update whose dictionary is {@code dict}, in that order. */
    private UpdateDecoder update(final String... dict) {
        buf.clear();
        final int off = RealtimeTableTest.trade(buf, 1, new long[] {1}, new String[] {dict[0]}, dict);
        return RdbFrames.decode(buf, off);
    }

    private List<String> names(final UpdateDecoder u) {
        final int[] ids = cache.ids(u, catalog);
        final List<String> out = new ArrayList<>();
        for (int code = 0; code < u.symCount(); code++) {
            out.add(catalog.name(ids[code]));
        }
        return out;
    }

    @Test
    void shouldMapARepeatedDictionaryFromTheCache() {
        assertThat(names(update("IBM", "AAPL", "MSFT", "VOD.L"))).containsExactly("IBM", "AAPL", "MSFT", "VOD.L");
        assertThat(cache.misses()).isEqualTo(1);
        assertThat(cache.hits()).isZero();
        assertThat(names(update("IBM", "AAPL", "MSFT", "VOD.L"))).containsExactly("IBM", "AAPL", "MSFT", "VOD.L");
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(catalog.size()).isEqualTo(4);
    }

    @Test
    void shouldTellApartDictionariesOfTheSameLengthAndOrder() {
        assertThat(names(update("AAA", "BBB", "CCC", "DDD"))).containsExactly("AAA", "BBB", "CCC", "DDD");
        assertThat(names(update("AAA", "BBB", "CCC", "DDE"))).containsExactly("AAA", "BBB", "CCC", "DDE");
        assertThat(names(update("BBB", "AAA", "CCC", "DDD"))).containsExactly("BBB", "AAA", "CCC", "DDD");
        assertThat(names(update("AAA", "BBB", "CCC", "DDD"))).containsExactly("AAA", "BBB", "CCC", "DDD");
        assertThat(cache.misses()).isEqualTo(3);
        assertThat(cache.hits()).isEqualTo(1);
    }

    @Test
    void shouldStayRightWhenMoreDictionariesCycleThanItHolds() {
        final Random rnd = new Random(11);
        final String[][] dicts = new String[300][];
        for (int d = 0; d < dicts.length; d++) {
            final int n = SymDictionaryCache.MIN_SYMS + rnd.nextInt(40);
            dicts[d] = new String[n];
            for (int i = 0; i < n; i++) {
                dicts[d][i] = "S" + d + "_" + i;
            }
        }
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < 500; k++) {
                final String[] dict = dicts[rnd.nextInt(round == 0 ? 10 : dicts.length)];
                assertThat(names(update(dict))).containsExactly(dict);
            }
        }
        assertThat(cache.hits()).isPositive();
        assertThat(cache.misses()).isPositive();
    }

    @Test
    void shouldFollowAFixedCycleOfDictionariesAndStayRightWhenItChanges() {
        final String[][] dicts = new String[10][];
        for (int d = 0; d < dicts.length; d++) {
            dicts[d] = new String[] {"A" + d, "B" + d, "C" + d, "D" + d, "E" + d};
        }
        for (int round = 0; round < 3; round++) {
            for (final String[] dict : dicts) {
                assertThat(names(update(dict))).containsExactly(dict);
            }
        }
        assertThat(cache.misses()).isEqualTo(dicts.length);
        assertThat(cache.hits()).isEqualTo(2L * dicts.length);
        // the cycle changes: a new dictionary where the follower of dicts[3] was, then the old order again
        final String[] other = {"A4", "B4", "C4", "D4", "X4"};
        assertThat(names(update(dicts[3]))).containsExactly(dicts[3]);
        assertThat(names(update(other))).containsExactly(other);
        assertThat(names(update(dicts[3]))).containsExactly(dicts[3]);
        assertThat(names(update(dicts[4]))).containsExactly(dicts[4]);
        assertThat(names(update(dicts[3]))).containsExactly(dicts[3]);
        assertThat(names(update(other))).containsExactly(other);
    }

    @Test
    void shouldLookUpSmallDictionariesSymbolBySymbol() {
        assertThat(names(update("X", "Y"))).containsExactly("X", "Y");
        assertThat(names(update("X", "Y"))).containsExactly("X", "Y");
        assertThat(cache.hits() + cache.misses()).isZero();
        assertThat(Arrays.asList(names(update("Y")).toArray())).containsExactly("Y");
    }

    @Test
    void shouldHashAndCompareHeapAndDirectBuffersAlike() {
        final ByteBuf heap = PooledByteBufAllocator.DEFAULT.heapBuffer();
        try {
            final byte[] bytes = "0123456789abcdefXYZ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            heap.writeZero(3).writeBytes(bytes);
            buf.clear();
            buf.writeZero(5).writeBytes(bytes);
            assertThat(SymDictionaryCache.hash(heap, 3, bytes.length)).isEqualTo(SymDictionaryCache.hash(buf, 5, bytes.length));
            assertThat(SymDictionaryCache.same(bytes, heap, 3, bytes.length)).isTrue();
            assertThat(SymDictionaryCache.same(bytes, buf, 5, bytes.length)).isTrue();
            assertThat(SymDictionaryCache.same(bytes, buf, 4, bytes.length)).isFalse();
            assertThat(SymDictionaryCache.hash(buf, 5, bytes.length - 1)).isNotEqualTo(SymDictionaryCache.hash(buf, 5, bytes.length));
        } finally {
            heap.release();
        }
    }
}
