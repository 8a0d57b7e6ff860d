package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.table.MemorySegment;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.jtick.core.query.exec.AccumulatorTest.T;
import static io.jtick.core.query.exec.ExecRig.group;
import static io.jtick.core.query.exec.ExecRig.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Group keys to dense group numbers, across segments and batches. */
class GroupsTest {
    private static final long MINUTE = 60_000_000_000L;

    private static List<Object> list(final Object... values) {
        return Arrays.asList(values);
    }

    private static MemorySegment seg(final int day, final Object[]... rows) {
        final MemorySegment.Builder b = MemorySegment.builder(T, day);
        for (final Object[] r : rows) {
            b.row((long) r[0], (String) r[1], (double) r[2], (long) r[3], 1.0, 0f, 0, (char) r[4]);
        }
        return b.build();
    }

    private static Object[] r(final long time, final String sym, final double px, final long qty, final char c) {
        return new Object[] {time, sym, px, qty, c};
    }

    @Test
    void shouldAgreeOnSymsWhoseLocalIdsDifferBetweenSegments() {
        final MemorySegment first = seg(1, r(1, "A", 1, 1, 'N'), r(2, "B", 1, 2, 'N'));
        final MemorySegment second = seg(2, r(3, "B", 1, 3, 'N'), r(4, "C", 1, 4, 'N'), r(5, "A", 1, 5, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"n\":{\"count\":\"*\"},\"q\":{\"sum\":\"qty\"}},\"by\":\"sym\"}", T);

        assertThat(group(p, first, second)).containsExactly(list("A", 2L, 6L), list("B", 2L, 5L), list("C", 1L, 4L));
    }

    @Test
    void shouldGroupByDateAndSymWithTheSegmentsDate() {
        final MemorySegment first = seg(1, r(1, "A", 1, 1, 'N'), r(2, "A", 1, 2, 'N'));
        final MemorySegment second = seg(2, r(3, "A", 1, 3, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":[\"date\",\"sym\"]}", T);

        assertThat(group(p, first, second)).containsExactly(list(1L, "A", 3L), list(2L, "A", 3L));
    }

    @Test
    void shouldGroupByATupleOfKeys() {
        final MemorySegment s = seg(1, r(1, "A", 1, 1, 'N'), r(2, "A", 1, 2, 'X'), r(3, "B", 1, 3, 'N'), r(4, "A", 1, 4, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":[\"sym\",\"c\"]}", T);

        assertThat(group(p, s)).containsExactly(list("A", (long) 'N', 5L), list("A", (long) 'X', 2L), list("B", (long) 'N', 3L));
    }

    @Test
    void shouldBucketTimeIntoBars() {
        final MemorySegment s = seg(1, r(0, "A", 1, 1, 'N'), r(MINUTE - 1, "B", 1, 2, 'N'), r(MINUTE, "A", 1, 3, 'N'),
            r(7 * MINUTE + 5, "A", 1, 4, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":{\"bar\":{\"xbar\":[\"5m\",\"time\"]}}}", T);

        assertThat(group(p, s)).containsExactly(list(0L, 6L), list(5 * MINUTE, 4L));
    }

    @Test
    void shouldBucketFloatsAndTreatMinusZeroAsZero() {
        final MemorySegment s = seg(1, r(1, "A", 0.0, 1, 'N'), r(2, "A", -0.0, 2, 'N'), r(3, "A", 1.5, 4, 'N'), r(4, "A", 0.75, 8, 'N'));
        final Plan byPx = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":\"px\"}", T);
        final Plan byBar = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":{\"b\":{\"xbar\":[1,\"px\"]}}}", T);

        assertThat(group(byPx, s)).containsExactly(list(0.0, 3L), list(1.5, 4L), list(0.75, 8L));
        assertThat(group(byBar, s)).containsExactly(list(0.0, 11L), list(1.0, 4L));
    }

    @Test
    void shouldHaveOneGroupWithoutKeysEvenWithoutRows() {
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"n\":{\"count\":\"*\"}}}", T);

        assertThat(group(p)).containsExactly(list(0L));
        assertThat(group(p, seg(1, r(1, "A", 1, 1, 'N')), seg(2, r(1, "B", 1, 1, 'N')))).containsExactly(list(2L));
    }

    @Test
    void shouldGroupOneSymsRowsWithoutReadingTheSymColumn() {
        final MemorySegment s = seg(1, r(1, "A", 1, 1, 'N'), r(2, "B", 1, 2, 'N'), r(3, "A", 1, 4, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"}},\"by\":\"sym\"}", T);
        final SymDict dict = new SymDict();
        final Groups groups = new Groups(p, ExecRig.CAPACITY, new SymDict.LocalMap(dict), 10);
        final Batch b = new Batch(p, ExecRig.CAPACITY);
        b.bind(s, ExecRig.columns(p, s), null);
        groups.bind(s);

        b.setList(new int[] {0, 2}, 0, 2, s.symId("A"));
        groups.add(b);
        b.setList(new int[] {1}, 0, 1, s.symId("B"));
        groups.add(b);

        assertThat(b.chunks[1]).as("the sym column was never read").isNull();
        assertThat(ExecRig.rows(p, groups, dict)).containsExactly(list("A", 5L), list("B", 2L));
    }

    @Test
    void shouldMeetNewSymsInTheMiddleOfFilteredBatchesAndMergeSlicesThatShareOneThreadsSymMap() {
        final MemorySegment s = seg(1, r(1, "A", 1, 1, 'N'), r(2, "B", 1, 2, 'N'), r(3, "A", 1, 4, 'N'), r(4, "C", 1, 8, 'N'),
            r(5, "B", 1, 16, 'N'), r(6, "D", 1, 32, 'N'), r(7, "C", 1, 64, 'N'), r(8, "B", 1, 128, 'N'));
        final MemorySegment other = seg(2, r(9, "D", 1, 256, 'N'), r(10, "A", 1, 512, 'N')); // other local ids: D 0, A 1
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"q\":{\"sum\":\"qty\"},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", T);
        final SymDict dict = new SymDict();
        dict.id("D"); // another segment met D first: query-wide ids are not the local ones
        final SymDict.LocalMap syms = new SymDict.LocalMap(dict);
        final Batch b = new Batch(p, ExecRig.CAPACITY);
        b.bind(s, ExecRig.columns(p, s), null);
        // three slices of one thread, as a split scan makes them: rows 0-3, rows 4-7, then the other segment
        final Groups first = new Groups(p, ExecRig.CAPACITY, syms, 10);
        first.bind(s);
        b.setRange(0, 4, -1);
        b.sel = new int[] {1, 2, 3}; // row 0 filtered out: B, then A, then C, each new in the middle of the batch
        b.count = 3;
        first.add(b);
        final Groups second = new Groups(p, ExecRig.CAPACITY, syms, 10);
        second.bind(s);
        b.setRange(4, 2, -1); // B, D: new to this slice
        second.add(b);
        b.setRange(6, 2, -1); // C new, then B known: the second pass fixes the new row and leaves the known one
        second.add(b);
        assertThat(ExecRig.rows(p, second, dict)).as("a slice's groups start empty").containsExactly(list("B", 144L, 2L),
            list("D", 32L, 1L), list("C", 64L, 1L));
        final Groups third = new Groups(p, ExecRig.CAPACITY, syms, 10);
        third.bind(other);
        b.bind(other, ExecRig.columns(p, other), null);
        b.setRange(0, 2, -1);
        third.add(b);
        assertThat(ExecRig.rows(p, third, dict)).as("the thread's sym map follows the segment").containsExactly(list("D", 256L, 1L),
            list("A", 512L, 1L));

        first.merge(second);
        first.merge(third);

        assertThat(ExecRig.rows(p, first, dict)).containsExactly(list("B", 146L, 3L), list("A", 516L, 2L), list("C", 72L, 2L),
            list("D", 288L, 2L));
    }

    @Test
    void shouldCountFromTheIndexAlone() {
        final MemorySegment s = seg(1, r(1, "A", 1, 1, 'N'), r(2, "B", 1, 2, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"n\":{\"count\":\"*\"},\"m\":{\"count\":\"*\"}},\"by\":\"sym\"}", T);
        final SymDict dict = new SymDict();
        final Groups groups = new Groups(p, ExecRig.CAPACITY, new SymDict.LocalMap(dict), 10);
        groups.bind(s);

        groups.addCount(s.symId("B"), 7);
        groups.addCount(s.symId("A"), 3);
        groups.addCount(s.symId("B"), 1);

        assertThat(ExecRig.rows(p, groups, dict)).containsExactly(list("B", 8L, 8L), list("A", 3L, 3L));
    }

    @Test
    void shouldKeepItsGroupsThroughRehashing() {
        final MemorySegment.Builder b = MemorySegment.builder(T, 1);
        for (int i = 0; i < 60; i++) {
            b.row((long) i, "A", 1.0, (long) (i % 50), 1.0, 0f, 0, 'N');
        }
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"qty\"}", T);

        final List<List<Object>> out = group(p, b.build());

        assertThat(out).hasSize(50);
        for (int g = 0; g < 50; g++) {
            assertThat(out.get(g)).containsExactly((long) g, g < 10 ? 2L : 1L);
        }
    }

    @Test
    void shouldRefuseMoreGroupsThanTheRowLimit() {
        final MemorySegment s = seg(1, r(1, "A", 1, 1, 'N'), r(2, "B", 1, 2, 'N'), r(3, "C", 1, 4, 'N'));
        final Plan p = plan("{\"table\":\"t\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", T);
        final Groups groups = new Groups(p, ExecRig.CAPACITY, new SymDict.LocalMap(new SymDict()), 2);
        groups.bind(s);

        assertThatThrownBy(() -> groups.add(ExecRig.batch(p, s)))
            .isInstanceOf(QueryException.class)
            .hasMessage("result over the row limit [groups>2, maxRows=2]: narrow the query or group more coarsely")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.TOO_LARGE);
    }
}
