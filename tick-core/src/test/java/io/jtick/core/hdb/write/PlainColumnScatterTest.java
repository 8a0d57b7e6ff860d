package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class PlainColumnScatterTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final int BLOCK_BYTES = 4096;

    @TempDir
    Path dir;

    /** The same column written by gathering the rows in partition order, block by block. */
    private static void gather(final Path file, final MemorySegment table, final int c, final SortOrder order)
        throws IOException {
        final int n = table.rowCount();
        final int blockRows = BLOCK_BYTES / table.schema().type(c).width();
        try (ColumnFileWriter w = new ColumnFileWriter(file, table.schema().type(c), ColumnEncoding.PLAIN, blockRows, n)) {
            final UnsafeBuffer block = w.block();
            final ColumnChunk chunk = new ColumnChunk();
            for (int at = 0, k; at < n; at += k) {
                k = BlockCuts.blockEnd(order.ranges(), at, n, blockRows) - at;
                if (c == TableSchema.SYM) {
                    order.fillSymCodes(at, k, block);
                } else {
                    BlockFill.copyRows(table, c, order.rows(), at, k, chunk, block);
                }
                w.writeBlock(k);
            }
            w.finish();
        }
    }

    @Test
    void shouldWriteTheSameFileAsGatheringInPartitionOrderWhateverTheStage() throws IOException {
        // trade's cond column (one byte) has blocks that several syms share; quote's 8-byte columns mostly one sym each
        for (final MemorySegment table : new MemorySegment[] {SyntheticDay.segment("quote", DAY, 9_000, 43, 5),
            SyntheticDay.segment("trade", DAY, 12_000, 97, 6)}) {
            check(table);
        }
    }

    @Test
    void shouldSummarizeBlocksAsTheBlockWriterDoesWithNaNSignedZerosAndInfinities() throws IOException {
        // the scatter folds each block's summary from pieces: a piece of only NaN, -0.0 against 0.0 and
        // infinities must fold to what summarizing the whole block gives (the gathered file's index)
        final String[] syms = {"NAN", "ZERO", "INF", "MIX", "LAST"};
        final MemorySegment.Builder b = MemorySegment.builder(TableSchema.quote(0), (int) DAY.toEpochDay());
        final long open = DAY.toEpochDay() * 86_400_000_000_000L + 34_200_000_000_000L;
        for (int r = 0; r < 3_000; r++) {
            final int s = r % syms.length;
            final double bid = switch (s) {
                case 0 -> Double.NaN;
                case 1 -> (r / syms.length) % 2 == 0 ? 0.0 : -0.0;
                case 2 -> r % 7 == 0 ? Double.POSITIVE_INFINITY : r % 11 == 0 ? Double.NEGATIVE_INFINITY : r;
                case 3 -> r % 3 == 0 ? Double.NaN : -r;
                default -> r * 0.5;
            };
            b.row(open + r * 1_000L, syms[s], bid, r % 13 == 0 ? Double.NaN : bid + 1, (long) r, (long) -r);
        }
        check(b.build());
    }

    @Test
    void shouldBuildTheSameFileWholeForDirectIoWhateverTheStage() throws IOException {
        final int align = DirectIo.AUTO.alignment(dir);
        Assumptions.assumeTrue(align > 0, "the temporary directory's file system refuses O_DIRECT: " + dir);
        // 9,001 quote rows: no file is a whole number of blocks of the file system, so the last block is padded and truncated
        for (final MemorySegment table : new MemorySegment[] {SyntheticDay.segment("quote", DAY, 9_001, 43, 5),
            SyntheticDay.segment("trade", DAY, 12_000, 97, 6)}) {
            final SortOrder order = SortOrder.of(table);
            for (int c = 0; c < table.schema().columnCount(); c++) {
                // the sym column too: filled from the sym ranges, as the block writer fills it
                final Path expected = dir.resolve(table.schema().name() + "-gathered-" + c);
                gather(expected, table, c, order);
                final ColumnType type = table.schema().type(c);
                final int blockRows = BLOCK_BYTES / type.width();
                final int bytes = ColumnFileWriter.wholeBufferBytes(type, table.rowCount(),
                    table.rowCount() / blockRows + order.ranges().count() + 2, align);
                final ByteBuffer allocated = ByteBuffer.allocateDirect(bytes + align);
                try {
                    for (final int stage : new int[] {1, 777, 4_096, PlainColumnScatter.WHOLE_STAGE_ROWS}) {
                        final Path got = dir.resolve(table.schema().name() + "-whole-" + c + "-" + stage);
                        try (ColumnFileWriter w = ColumnFileWriter.directWhole(got, type, blockRows, table.rowCount(), true, align, null,
                            allocated.alignedSlice(align))) {
                            final PlainColumnScatter.PlainBlocks blocks = PlainColumnScatter.scatterWhole(w.wholeValues(), table, c, order,
                                BLOCK_BYTES, stage);
                            w.finishPlain(blocks.sizes(), blocks.crcs(), blocks.summaries(), blocks.count());
                        }
                        assertThat(Files.size(got) % align).as("a file of a whole number of blocks would not test the tail").isNotZero();
                        assertThat(Files.mismatch(expected, got)).as("%s column %d, stage %d", table.schema().name(), c, stage)
                            .isEqualTo(-1L);
                        Files.delete(got);
                    }
                } finally {
                    BufferUtil.free(allocated);
                }
            }
        }
    }

    @Test
    void shouldPlaceEveryRowAtItsPartitionRowWhicheverStageIsAskedFirst() {
        final MemorySegment table = SyntheticDay.segment("trade", DAY, 50_000, 61, 8);
        final SortOrder order = SortOrder.of(table);
        final int[] rows = order.rows();
        final int stageRows = 3_000; // 17 stages: more than are kept when asked out of order below
        final int stages = (table.rowCount() + stageRows - 1) / stageRows;
        final int[] first = new int[stages];
        for (int k = 0; k < stages; k++) {
            first[k] = (k * 7) % stages * stageRows; // 7 is prime to 17: every stage once, out of order
        }
        final int[] inOrder = IntStream.range(0, stages).map(k -> k * stageRows).toArray();
        for (final int[] asked : new int[][] {first, inOrder}) {
            final ScatterStages fresh = SortOrder.of(table).stages();
            final int[] target = new int[table.rowCount()];
            Arrays.fill(target, -1);
            for (final int a : asked) {
                final ScatterStages.Stage s = fresh.targets(a, stageRows);
                assertThat(s.targets()).isTrue();
                for (int i = 0; i < s.rows(); i++) {
                    target[s.position()[i]] = a + i;
                }
            }
            assertThat(target).as("the row at each partition row").isEqualTo(rows);
        }
    }

    @Test
    void shouldPlaceEveryRowWhenThreadsAskForTheSameStagesAtOnce() throws Exception {
        final MemorySegment table = SyntheticDay.segment("quote", DAY, 200_000, 89, 9);
        final int[] rows = SortOrder.of(table).rows();
        final int stageRows = 7_000;
        final ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 5; round++) {
                ask(table, rows, stageRows, round, threads);
            }
        } finally {
            threads.shutdown();
            assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
    }

    /** Three threads ask for every target stage of a fresh {@link ScatterStages} at once, one of them preparing them first. */
    private static void ask(final MemorySegment table, final int[] rows, final int stageRows, final int round,
                            final ExecutorService threads) throws Exception {
        final ScatterStages shared = SortOrder.of(table).stages();
        final int[][] targets = new int[3][table.rowCount()];
        final CyclicBarrier start = new CyclicBarrier(3);
        final List<CompletableFuture<Void>> askers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            final int[] target = targets[t];
            final boolean prepares = t == 0;
            askers.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (final Exception e) {
                    throw new IllegalStateException(e);
                }
                if (prepares) {
                    shared.prepareTargets(stageRows); // as the sorting thread does, while writers ask
                }
                for (int a = 0; a < table.rowCount(); a += stageRows) {
                    final ScatterStages.Stage s = shared.targets(a, stageRows);
                    for (int i = 0; i < s.rows(); i++) {
                        target[s.position()[i]] = a + i;
                    }
                }
            }, threads));
        }
        CompletableFuture.allOf(askers.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
        for (final int[] target : targets) {
            assertThat(target).as("round %d: the row at each partition row", round).isEqualTo(rows);
        }
    }

    private void check(final MemorySegment quote) throws IOException {
        final SortOrder order = SortOrder.of(quote);
        assertThat(order.identity()).isFalse();
        assertThat(order.reordered()).isFalse();
        for (int c = 0; c < quote.schema().columnCount(); c++) {
            if (c == TableSchema.SYM) {
                continue;
            }
            final Path expected = dir.resolve(quote.schema().name() + "-gathered-" + c);
            gather(expected, quote, c, order);
            for (final int stage : new int[] {1, 777, 9_000, PlainColumnScatter.STAGE_ROWS}) {
                final Path got = dir.resolve(quote.schema().name() + "-scattered-" + c + "-" + stage);
                final int blockRows = BLOCK_BYTES / quote.schema().type(c).width();
                try (ColumnFileWriter w = new ColumnFileWriter(got, quote.schema().type(c), ColumnEncoding.PLAIN, blockRows,
                    quote.rowCount())) {
                    PlainColumnScatter.write(w, quote, c, order, BLOCK_BYTES, stage);
                }
                assertThat(Files.readAllBytes(got)).as("column %d, stage %d", c, stage).isEqualTo(Files.readAllBytes(expected));
                try (ColumnFile f = ColumnFile.open(got, quote.schema().type(c), quote.rowCount())) {
                    assertThat(f.rowCount()).isEqualTo(quote.rowCount());
                }
            }
        }
    }
}
