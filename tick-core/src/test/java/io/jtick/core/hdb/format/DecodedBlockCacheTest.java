package io.jtick.core.hdb.format;

import io.jtick.core.hdb.write.BlockCuts;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared cache of decoded blocks: bounded in bytes, what point reads and small readers hit, not what scans fill. */
@ExtendWith(LeakCheck.class)
class DecodedBlockCacheTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    @AfterEach
    void restore() {
        DecodedBlockCache.shared().capacityBytes(DecodedBlockCache.DEFAULT_CAPACITY_BYTES);
        DecodedBlockCache.shared().clear();
    }

    @Test
    void shouldStayWithinItsBytesAndEvictTheUnreferencedFirst() {
        final DecodedBlockCache cache = new DecodedBlockCache(10 * 800);
        for (int b = 0; b < 10; b++) {
            cache.add(new DecodedBlockCache.Entry(7, b, b * 100, new long[100], 800));
        }
        assertThat(cache.bytes()).isEqualTo(8000);
        for (int b = 0; b < 5; b++) {
            assertThat(cache.find(7, b)).as("block %s", b).isNotNull();
        }
        for (int b = 10; b < 15; b++) {
            cache.add(new DecodedBlockCache.Entry(7, b, b * 100, new long[100], 800));
            assertThat(cache.bytes()).isLessThanOrEqualTo(8000);
        }
        assertThat(cache.find(7, 14)).isNotNull();
        int kept = 0;
        for (int b = 0; b < 5; b++) {
            kept += cache.find(7, b) != null ? 1 : 0;
        }
        assertThat(kept).as("blocks read since they were added survive a first sweep").isGreaterThan(0);
        assertThat(cache.hits()).isGreaterThan(0);
        assertThat(cache.misses()).isGreaterThanOrEqualTo(0);
        cache.capacityBytes(1600);
        assertThat(cache.bytes()).isLessThanOrEqualTo(1600);
        cache.clear();
        assertThat(cache.bytes()).isZero();
        assertThat(cache.find(7, 14)).isNull();
    }

    @Test
    void shouldSizeItsTableToItsCapacitySoThatAFullCacheOfSmallPagesFindsThemAll() {
        final long page = 32 << 10;
        final DecodedBlockCache cache = new DecodedBlockCache(1L << 30);
        assertThat(cache.slotCount()).isGreaterThanOrEqualTo((int) ((1L << 30) / DecodedBlockCache.BYTES_PER_SLOT));
        final int pages = (int) ((1L << 30) / page);
        assertThat(pages).as("more pages than the least table has slots").isGreaterThan(DecodedBlockCache.MIN_SLOTS);
        for (int p = 0; p < pages; p++) {
            cache.add(new DecodedBlockCache.Entry(-3, p, p * 8192, new int[1], (int) page));
        }
        int found = 0;
        for (int p = 0; p < pages; p++) {
            found += cache.find(-3, p) != null ? 1 : 0;
        }
        assertThat(found).as("pages of a cache filled to its bound found again").isGreaterThan(pages * 9 / 10);
        cache.capacityBytes(64L << 20);
        assertThat(cache.slotCount()).isEqualTo(DecodedBlockCache.MIN_SLOTS);
        assertThat(cache.bytes()).isLessThanOrEqualTo(64L << 20);
        int kept = 0;
        for (int p = 0; p < pages; p++) {
            kept += cache.find(-3, p) != null ? 1 : 0;
        }
        assertThat(kept).as("the pages kept after shrinking are found in the smaller table").isEqualTo(cache.bytes() / page);
        assertThat(DecodedBlockCache.defaultCapacityBytes()).isGreaterThanOrEqualTo(DecodedBlockCache.DEFAULT_CAPACITY_BYTES)
            .isGreaterThanOrEqualTo(Runtime.getRuntime().maxMemory() / 4);
    }

    @Test
    void shouldServePointReadsFromTheCacheAndKeepScansOut() throws IOException {
        final MemorySegment day = SyntheticDay.segment("quote", DAY, 40_000, 10, 5);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/lz4")), PartitionWriter.DEFAULT_BLOCK_BYTES, 2,
            PartitionWriter.WriteHook.NONE).write(DAY, List.of(day));
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        cache.clear();
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
            final ColumnFile bid = t.column(2);
            assertThat(bid.blockRows()).as("lz4 blocks of 16 KiB").isEqualTo(BlockCuts.FAST_CODEC_BLOCK_BYTES / 8);
            final double first = bid.getDouble(5);
            final long afterPoint = cache.bytes();
            assertThat(afterPoint).as("a point read decodes its block into the cache").isGreaterThan(0);
            assertThat(bid.getDouble(5)).isEqualTo(first);
            final ColumnChunk small = new ColumnChunk();
            for (int from = 0; from < t.rowCount(); from += 1000) {
                t.read(2, from, Math.min(1000, t.rowCount() - from), small);
            }
            assertThat(cache.bytes()).as("a first scan decodes what it reads and keeps nothing more (its batches in a block count once)")
                .isEqualTo(afterPoint);
            final ColumnChunk again = new ColumnChunk();
            for (int from = 0; from < t.rowCount(); from += 1000) {
                t.read(2, from, Math.min(1000, t.rowCount() - from), again);
            }
            assertThat(cache.bytes()).as("a column of at most a quarter of the cache, read again, stays decoded whole")
                .isGreaterThanOrEqualTo(bid.rawBytes());
            final long hits = cache.hits();
            final double[] values = new double[t.rowCount()];
            bid.read(0, t.rowCount(), values, 0);
            assertThat(cache.hits() - hits).as("a third read finds every block in the cache").isEqualTo(bid.blockCount());
            assertThat(values[5]).isEqualTo(first);
            cache.clear();
            cache.capacityBytes(bid.rawBytes());
            final ColumnChunk scan = new ColumnChunk();
            for (int from = 0; from < t.rowCount(); from += 1000) {
                t.read(2, from, Math.min(1000, t.rowCount() - from), scan);
            }
            final long blocks = bid.blockCount();
            assertThat(blocks).isGreaterThan(DecodedBlock.SCAN_BLOCKS);
            assertThat(cache.bytes()).as("a scan of %s blocks of a larger column leaves at most its first %s in the cache", blocks,
                DecodedBlock.SCAN_BLOCKS).isLessThanOrEqualTo((long) DecodedBlock.SCAN_BLOCKS * bid.blockRows() * 8);
            cache.capacityBytes(0);
            assertThat(bid.getDouble(5)).as("no cache: decoded again").isEqualTo(first);
            assertThat(cache.bytes()).isZero();
        }
    }
    @Test
    void shouldDropTheBlocksOfAFileThatCloses() throws IOException {
        final DecodedBlockCache own = new DecodedBlockCache(1 << 20);
        own.add(new DecodedBlockCache.Entry(7, 0, 0, new long[100], 800));
        own.add(new DecodedBlockCache.Entry(7, 1, 100, new long[100], 800));
        own.add(new DecodedBlockCache.Entry(8, 0, 0, new long[100], 800));
        own.evictFile(7);
        assertThat(own.bytes()).isEqualTo(800);
        assertThat(own.find(7, 0)).isNull();
        assertThat(own.find(7, 1)).isNull();
        assertThat(own.find(8, 0)).as("another file's block stays").isNotNull();

        final MemorySegment day = SyntheticDay.segment("quote", DAY, 40_000, 10, 5);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/lz4")), PartitionWriter.DEFAULT_BLOCK_BYTES, 2,
            PartitionWriter.WriteHook.NONE).write(DAY, List.of(day));
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        cache.clear();
        try (PartitionTable kept = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
            final double bid = kept.column(2).getDouble(5);
            kept.column(2).getDouble(30_000);
            final long keptBytes = cache.bytes();
            assertThat(keptBytes).as("a point read decodes its block into the cache").isGreaterThan(0);
            try (PartitionTable closing = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
                assertThat(closing.column(2).getDouble(30_000)).isEqualTo(kept.column(2).getDouble(30_000));
                assertThat(cache.bytes()).as("the second table's own block").isGreaterThan(keptBytes);
            }
            assertThat(cache.bytes()).as("the closed table's blocks are gone, the open one's stay").isEqualTo(keptBytes);
            final long hits = cache.hits();
            assertThat(kept.column(2).getDouble(5)).isEqualTo(bid);
            assertThat(cache.hits()).isEqualTo(hits + 1);
        }
        assertThat(cache.bytes()).isZero();
    }
}
