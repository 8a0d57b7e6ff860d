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

    private static Collected rows(final SymIndex index, final int sym, final int rowCount, final int firstRowSym) {
        final Collected c = new Collected();
        index.rows(sym, rowCount, firstRowSym, c);
        return c;
    }

    private static void add(final SymIndex index, final int sym, final int row) {
        index.addAll(new int[] {sym}, 0, 1, row);
    }

    @Test
    void shouldGiveEachSymsRowsInOrderAcrossBlocksAndSlabs() {
        final Random rnd = new Random(3);
        final int n = 300_000;
        final int syms = 40;
        final int[] symOf = new int[n];
        final SymIndex index = new SymIndex(2);
        for (int r = 0; r < n; r++) {
            // sym 0 takes about half the rows: its chain runs through several full-size slabs; syms
            // 16 and up arrive later and grow the writer's arrays (sized for 16)
            symOf[r] = rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(r < n / 3 ? 15 : syms - 1);
        }
        // added in runs of 1 to 5000 rows, each from its own array at an offset unlike its first row
        // (as a table's chunks hand them over), so that runs cross new blocks, new syms and growth
        for (int r = 0; r < n;) {
            final int len = Math.min(n - r, 1 + rnd.nextInt(5000));
            final int at = rnd.nextInt(100);
            final int[] chunk = new int[at + len + 7];
            System.arraycopy(symOf, r, chunk, at, len);
            index.addAll(chunk, at, at + len, r);
            r += len;
        }
        for (final int limit : new int[] {n, n - 1, 12_345, 1}) {
            for (int s = 0; s < syms; s++) {
                final List<Integer> expected = new ArrayList<>();
                for (int r = 0; r < limit; r++) {
                    if (symOf[r] == s) {
                        expected.add(r);
                    }
                }
                assertThat(rows(index, s, limit, symOf[0]).rows).as("sym %d below %d", s, limit).containsExactlyElementsOf(expected);
            }
        }
        assertThat(rows(index, syms, n, symOf[0]).rows).isEmpty();
        assertThat(rows(index, -1, n, symOf[0]).rows).isEmpty();
    }

    @Test
    void shouldHandARunOfConsecutiveRowsAsOneRangeAndAListOtherwise() {
        final SymIndex index = new SymIndex(16);
        for (int r = 0; r < 10_000; r++) {
            add(index, r < 9_000 ? 1 : 2 + (r & 1), r);
        }
        final Collected run = rows(index, 1, 10_000, 1);
        assertThat(run.rows).hasSize(9_000);
        assertThat(run.ranges).as("blocks of one run merge into one range").isEqualTo(1);
        assertThat(run.lists).isZero();
        final Collected alternate = rows(index, 2, 10_000, 1);
        assertThat(alternate.rows).hasSize(500).startsWith(9_000, 9_002);
        assertThat(alternate.lists).isPositive();
    }

    @Test
    void shouldNotHandOutRowZeroOfAnotherSymFromAnEmptyFirstEntry() {
        final SymIndex index = new SymIndex(16);
        add(index, 5, 0);
        add(index, 6, 1);
        assertThat(rows(index, 5, 2, 5).rows).containsExactly(0);
        // a reader whose row 0 holds another sym must not take a (not yet visible) zero entry for a row
        assertThat(rows(index, 5, 2, 6).rows).isEmpty();
        assertThat(rows(index, 6, 2, 5).rows).containsExactly(1);
        assertThat(rows(index, 6, 1, 5).rows).as("row 1 is past the reader's rows").isEmpty();
    }

    @Test
    void shouldHoldFourBytesPerRowPlusAnOpenBlockPerSym() {
        final int syms = 1000;
        final int n = 2_000_000;
        final SymIndex index = new SymIndex(syms);
        for (int r = 0; r < n; r++) {
            add(index, r % syms, r);
        }
        final long open = (long) syms * SymIndex.MAX_BLOCK * 4;
        assertThat(index.bytes()).isGreaterThanOrEqualTo(4L * n).isLessThanOrEqualTo(4L * n + open + 2 * (long) SymIndex.SLAB_INTS * 4);
    }
}
