package io.jtick.core.rdb;

import io.jtick.core.table.RowSink;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class SymIndexTest {
    /** Collects what {@link SymIndex#rows} hands out, and how (ranges vs lists). */
    private static final class Collected implements RowSink {
        final List<Integer> rows = new ArrayList<>();
        int ranges;
        int lists;

        @Override
        public void range(final int from, final int to) {
            ranges++;
            for (int r = from; r < to; r++) {
                rows.add(r);
            }
        }

        @Override
        public void rows(final int[] list, final int from, final int to) {
            lists++;
            for (int i = from; i < to; i++) {
                rows.add(list[i]);
            }
        }
    }

    /** A table's sym column as its chunks hold it: {@code symOf} cut into chunks of {@link ColumnStore#CHUNK_ROWS}. */
    private static Object[] chunks(final int[] symOf) {
        final Object[] chunks = new Object[ColumnStore.chunksFor(symOf.length) + 1];
        for (int k = 0; k < chunks.length; k++) {
            final int[] c = new int[ColumnStore.CHUNK_ROWS];
            final int from = k << ColumnStore.SHIFT;
            System.arraycopy(symOf, Math.min(from, symOf.length), c, 0, Math.max(0, Math.min(ColumnStore.CHUNK_ROWS, symOf.length - from)));
            chunks[k] = c;
        }
        return chunks;
    }

    private static Collected rows(final SymIndex index, final Object[] chunks, final int sym, final int rowCount, final int symLimit) {
        final Collected c = new Collected();
        SymIndex.rows(index.catchUp(chunks, rowCount, symLimit), sym, rowCount, c);
        return c;
    }

    private static List<Integer> expected(final int[] symOf, final int sym, final int limit) {
        final List<Integer> expected = new ArrayList<>();
        for (int r = 0; r < limit; r++) {
            if (symOf[r] == sym) {
                expected.add(r);
            }
        }
        return expected;
    }

    /** List equality first (AssertJ's element-wise message only when it fails: these lists run to 150,000 rows). */
    private static void assertRows(final List<Integer> actual, final List<Integer> expected, final String what) {
        if (!actual.equals(expected)) {
            assertThat(actual).as(what).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void shouldGiveEachSymsRowsInOrderAcrossChunksWhateverRowCountsItIsCaughtUpTo() {
        final Random rnd = new Random(3);
        final int n = 300_000;
        final int syms = 40;
        final int[] symOf = new int[n];
        for (int r = 0; r < n; r++) {
            // sym 0 takes about half the rows; syms 16 and up arrive later and grow the counts (sized for 16)
            symOf[r] = rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(r < n / 3 ? 15 : syms - 1);
        }
        final Object[] chunks = chunks(symOf);
        final SymIndex index = new SymIndex(2);
        // caught up in steps that end inside chunks, on chunk ends, and past earlier readers' counts
        int caught = 0;
        while (caught < n) {
            caught = Math.min(n, caught + 1 + rnd.nextInt(70_000));
            for (final int limit : new int[] {caught, caught - 1, caught / 2, 1}) {
                for (int s = 0; s < syms; s += 7) {
                    assertRows(rows(index, chunks, s, limit, syms).rows, expected(symOf, s, limit), "sym " + s + " below " + limit);
                }
            }
        }
        for (int s = 0; s < syms; s++) {
            assertRows(rows(index, chunks, s, n, syms).rows, expected(symOf, s, n), "sym " + s);
        }
        assertThat(rows(index, chunks, syms, n, syms).rows).isEmpty();
        assertThat(rows(index, chunks, -1, n, syms).rows).isEmpty();
    }

    @Test
    void shouldIndexSymsAtOrAboveALowSymLimitHint() {
        final Random rnd = new Random(5);
        final int n = 2 * ColumnStore.CHUNK_ROWS + 1000;
        final int syms = 300;
        final int[] symOf = new int[n];
        for (int r = 0; r < n; r++) {
            symOf[r] = rnd.nextInt(syms);
        }
        final Object[] chunks = chunks(symOf);
        final SymIndex index = new SymIndex(16);
        // the hint says 10 syms; every sym up to 299 must still be indexed, the largest one included
        for (int s = 0; s < syms; s += 13) {
            assertRows(rows(index, chunks, s, n, 10).rows, expected(symOf, s, n), "sym " + s);
        }
        assertRows(rows(index, chunks, syms - 1, n, 10).rows, expected(symOf, syms - 1, n), "largest sym");
        assertThat(rows(index, chunks, syms, n, 10).rows).isEmpty();
    }

    @Test
    void shouldListOnlyTheSymsAChunkHoldsWhenTheCatalogIsLarge() {
        final int syms = 100_000;
        final int n = 2 * ColumnStore.CHUNK_ROWS + 5_000;
        final int[] symOf = new int[n];
        final Random rnd = new Random(7);
        for (int r = 0; r < n; r++) {
            symOf[r] = rnd.nextInt(4) == 0 ? 3 : rnd.nextInt(syms);
        }
        final Object[] chunks = chunks(symOf);
        final SymIndex index = new SymIndex(16);
        for (final int s : new int[] {3, symOf[0], symOf[n - 1], syms - 1, 12_345}) {
            assertRows(rows(index, chunks, s, n, syms).rows, expected(symOf, s, n), "sym " + s);
        }
        assertRows(rows(index, chunks, 3, n - 100, syms).rows, expected(symOf, 3, n - 100), "sym 3 below " + (n - 100));
        // each block's starts are per distinct sym (at most a chunk's rows), not per catalog id
        assertThat(index.bytes()).isLessThan(4L * n + 3L * 8 * ColumnStore.CHUNK_ROWS + 64 * 1024);
    }

    @Test
    void shouldHandARunOfConsecutiveRowsAsOneRangeAndAListOtherwise() {
        final int n = 3 * ColumnStore.CHUNK_ROWS;
        final int[] symOf = new int[n];
        for (int r = 0; r < n; r++) {
            symOf[r] = r < n - 10_000 ? 1 : 2 + (r & 1);
        }
        final Object[] chunks = chunks(symOf);
        final SymIndex index = new SymIndex(16);
        final Collected run = rows(index, chunks, 1, n, 4);
        assertThat(run.rows).hasSize(n - 10_000);
        assertThat(run.ranges).as("the chunks' runs merge into one range").isEqualTo(1);
        assertThat(run.lists).isZero();
        final Collected alternate = rows(index, chunks, 2, n, 4);
        assertThat(alternate.rows).hasSize(5_000).startsWith(n - 10_000, n - 10_000 + 2);
        assertThat(alternate.lists).isPositive();
    }

    @Test
    void shouldHoldFourBytesPerRowPlusEachChunksStarts() {
        final int syms = 1000;
        final int n = 2_000_000;
        final int[] symOf = new int[n];
        for (int r = 0; r < n; r++) {
            symOf[r] = r % syms;
        }
        final SymIndex index = new SymIndex(syms);
        index.catchUp(chunks(symOf), n, syms);
        final long starts = (long) ColumnStore.chunksFor(n) * (4L * (syms + 1) + 128);
        assertThat(index.bytes()).isGreaterThanOrEqualTo(4L * n).isLessThanOrEqualTo(4L * n + starts + 1024);
    }
}
