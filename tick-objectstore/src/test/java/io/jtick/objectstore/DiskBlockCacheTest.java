package io.jtick.objectstore;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The disk tier on its own: a round trip, the start-up scan and its eviction by age, a file under another block's name. */
@ExtendWith(LeakCheck.class)
class DiskBlockCacheTest {
    private static final String OBJECT = "hdb/trade/date=2026-03-02/trade.parquet@\"0123abcd\"";

    @TempDir
    Path dir;

    private static byte[] block(final int k) {
        final byte[] b = new byte[4096];
        Arrays.fill(b, (byte) k);
        b[0] = (byte) (k * 31);
        return b;
    }

    private static RangeCache.BlockKey key(final long block) {
        return new RangeCache.BlockKey(OBJECT, block);
    }

    @Test
    void shouldKeepABlockAcrossARestartAndEvictTheOldestModifiedAtStartWhenOverBudget() throws IOException {
        final DiskBlockCache first = new DiskBlockCache(dir, 1 << 20, new TickMetrics());
        for (int k = 0; k < 10; k++) {
            first.put(key(k), block(k));
        }
        final long fileBytes = first.bytes() / 10;
        // block k last written k minutes after the first; a crash left a temporary file; a file not the cache's is there too
        for (int k = 0; k < 10; k++) {
            Files.setLastModifiedTime(dir.resolve(DiskBlockCache.fileName(key(k))), FileTime.fromMillis(1_700_000_000_000L + k * 60_000L));
        }
        final Path tmp = dir.resolve(DiskBlockCache.fileName(key(3)) + ".tmp-7");
        Files.write(tmp, new byte[100]);
        final Path foreign = dir.resolve("notes.txt");
        Files.writeString(foreign, "not a block");

        final TickMetrics metrics = new TickMetrics();
        final DiskBlockCache restarted = new DiskBlockCache(dir, 5 * fileBytes, metrics);
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.evictions").get()).isEqualTo(5);
        assertThat(restarted.bytes()).isEqualTo(5 * fileBytes);
        assertThat(restarted.fileCount()).isEqualTo(5);
        assertThat(tmp).doesNotExist();
        assertThat(foreign).exists();
        for (int k = 0; k < 5; k++) {
            assertThat(dir.resolve(DiskBlockCache.fileName(key(k)))).as("oldest evicted").doesNotExist();
            assertThat(restarted.get(key(k))).isNull();
        }
        for (int k = 5; k < 10; k++) {
            assertThat(restarted.get(key(k))).as("block %d", k).isEqualTo(block(k));
        }
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.hits").get()).isEqualTo(5);
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.misses").get()).isEqualTo(5);
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.errors").get()).isZero();
    }

    @Test
    void shouldRejectCountAndDeleteAFileHoldingAnotherBlock() throws IOException {
        final DiskBlockCache first = new DiskBlockCache(dir, 1 << 20, new TickMetrics());
        first.put(key(1), block(1));
        first.put(key(2), block(2));
        Files.copy(dir.resolve(DiskBlockCache.fileName(key(1))), dir.resolve(DiskBlockCache.fileName(key(2))),
            StandardCopyOption.REPLACE_EXISTING);

        final TickMetrics metrics = new TickMetrics();
        final DiskBlockCache restarted = new DiskBlockCache(dir, 1 << 20, metrics);
        assertThat(restarted.get(key(2))).isNull();
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.errors").get()).isEqualTo(1);
        assertThat(dir.resolve(DiskBlockCache.fileName(key(2)))).doesNotExist();
        assertThat(restarted.contains(key(2))).isFalse();
        assertThat(restarted.get(key(1))).isEqualTo(block(1));
        assertThat(restarted.bytes()).isEqualTo(Files.size(dir.resolve(DiskBlockCache.fileName(key(1)))));
    }

    @Test
    void shouldCountABlockItCannotWriteLeaveNoTemporaryFileAndGoOn() throws IOException {
        // a directory where the block's file would go: the rename into place fails, as on a full or read-only disk
        final Path blocker = dir.resolve(DiskBlockCache.fileName(key(1)));
        Files.createDirectories(blocker.resolve("x"));
        final TickMetrics metrics = new TickMetrics();
        final DiskBlockCache cache = new DiskBlockCache(dir, 1 << 20, metrics);
        cache.put(key(1), block(1));
        assertThat(metrics.counters().get("tick.hdb.cold.cache.disk.errors").get()).isEqualTo(1);
        assertThat(cache.contains(key(1))).isFalse();
        assertThat(cache.bytes()).isZero();
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).containsExactly(blocker);
        }
        cache.put(key(2), block(2));
        assertThat(cache.get(key(2))).isEqualTo(block(2));
    }
}
