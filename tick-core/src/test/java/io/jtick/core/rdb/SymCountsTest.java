package io.jtick.core.rdb;

import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows per sym kept over whole chunks ({@link SymCounts}) for {@code count by sym} on the RDB:
 * right at every row count as rows are appended, for snapshots older than the newest totals, and
 * for a query that runs while the writer inserts (it counts exactly its snapshot's rows).
 */
@ExtendWith(LeakCheck.class)
class SymCountsTest {
    private static final int SYMS = 300;
    private static final String COUNT_BY_SYM = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}";

    /** The sym of row {@code r}: a few syms take many rows, most few, one appears only late. */
    private static int symOf(final int r) {
        if (r > 5 * ColumnStore.CHUNK_ROWS && r % 1_000 == 7) {
            return SYMS + 5;
        }
        final int x = (int) ((r * 2_654_435_761L) >>> 7) & 0xFFFF;
        return x % 4 == 0 ? x % 5 : x % SYMS;
    }

    /** A sym column cut into chunks of {@link ColumnStore#CHUNK_ROWS}, as a table holds it. */
    private static Object[] chunks(final int rows) {
        final Object[] chunks = new Object[ColumnStore.chunksFor(rows) + 1];
        for (int k = 0; k < chunks.length; k++) {
            final int[] c = new int[ColumnStore.CHUNK_ROWS];
            for (int i = 0; i < c.length; i++) {
                final int r = (k << ColumnStore.SHIFT) + i;
                // rows past the count hold a sym no counted row has: counting one of them shows
                c[i] = r < rows ? symOf(r) : SYMS + 9;
            }
            chunks[k] = c;
        }
        return chunks;
    }

    private static long[] expected(final int rows, final int limit) {
        final long[] want = new long[limit];
        for (int r = 0; r < rows; r++) {
            want[symOf(r)]++;
        }
        return want;
    }

    private static long[] counted(final SymCounts counts, final Object[] chunks, final int rows) {
        final long[] out = new long[SYMS + 10];
        counts.count(chunks, rows, out);
        return out;
    }

    @Test
    void shouldCountEveryRowCountAsRowsAreAppended() {
        final int max = 6 * ColumnStore.CHUNK_ROWS + 1_234;
        final Object[] chunks = chunks(max);
        final SymCounts counts = new SymCounts();
        final int[] at = {0, 1, 17, ColumnStore.CHUNK_ROWS - 1, ColumnStore.CHUNK_ROWS, ColumnStore.CHUNK_ROWS + 1,
            3 * ColumnStore.CHUNK_ROWS + 5, 5 * ColumnStore.CHUNK_ROWS, 5 * ColumnStore.CHUNK_ROWS + 999, max};
        for (final int rows : at) {
            assertThat(counted(counts, chunks, rows)).as("rows=%d", rows).containsExactly(expected(rows, SYMS + 10));
            assertThat(counted(counts, chunks, rows)).as("again, from the kept totals, rows=%d", rows)
                .containsExactly(expected(rows, SYMS + 10));
        }
    }

    @Test
    void shouldCountASnapshotOlderThanTheNewestTotals() {
        final int max = (SymCounts.KEPT + 4) * ColumnStore.CHUNK_ROWS + 77;
        final Object[] chunks = chunks(max);
        final SymCounts counts = new SymCounts();
        // totals made chunk by chunk, more of them than are kept
        for (int k = 1; k <= SymCounts.KEPT + 4; k++) {
            counted(counts, chunks, k * ColumnStore.CHUNK_ROWS + 3);
        }
        // older snapshots, each with its own row count (rows past it hold a sym that must not be counted)
        for (final int rows : new int[] {max, 2 * ColumnStore.CHUNK_ROWS + 11, 5, (SymCounts.KEPT + 2) * ColumnStore.CHUNK_ROWS,
            ColumnStore.CHUNK_ROWS - 1, 0}) {
            final Object[] snapshot = chunks(rows);
            assertThat(counted(counts, snapshot, rows)).as("rows=%d", rows).containsExactly(expected(rows, SYMS + 10));
        }
    }

    /** Rows per sym name read from the segment's own sym column. */
    private static List<List<Object>> scanned(final TableSegment s) {
        final long[] n = new long[s.symIdLimit()];
        final ColumnChunk c = new ColumnChunk();
        for (int from = 0; from < s.rowCount(); from += TableSegment.DEFAULT_CHUNK_ROWS) {
            final int len = Math.min(TableSegment.DEFAULT_CHUNK_ROWS, s.rowCount() - from);
            s.read(TableSchema.SYM, from, len, c);
            for (int i = 0; i < len; i++) {
                n[c.ints()[c.offset() + i]]++;
            }
        }
        final List<List<Object>> rows = new ArrayList<>();
        for (int id = 0; id < n.length; id++) {
            if (n[id] > 0) {
                rows.add(List.of(s.symName(id), n[id]));
            }
        }
        return rows;
    }

    private static List<List<Object>> queried(final QueryEngine engine, final TableSegment s) {
        final ResultTable t = engine.query(COUNT_BY_SYM, new MemorySource().add(s));
        final List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < t.rowCount(); r++) {
            rows.add(List.of(t.getString(r, 0), t.getLong(r, 1)));
        }
        return rows;
    }

    @Test
    void shouldGiveEveryCountQueryItsSnapshotsRowsWhileTheWriterInserts() throws Exception {
        for (final boolean indexed : new boolean[] {true, false}) {
            final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1, indexed);
            final QueryEngine engine = new QueryEngine();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicLong checks = new AtomicLong();
            final List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                final boolean holds = t == 1;
                // reader 1 holds its snapshot while reader 0's queries count later chunks, then queries it
                readers.add(new Thread(() -> {
                    try {
                        while (!done.get() || checks.get() < 4) {
                            final TableSegment s = table.segment(0);
                            if (holds) {
                                final long until = table.rowCount() + 3L * ColumnStore.CHUNK_ROWS;
                                while (table.rowCount() < until && !done.get()) {
                                    Thread.onSpinWait();
                                }
                            }
                            final List<List<Object>> got = queried(engine, s);
                            final List<List<Object>> want = scanned(s);
                            if (!new java.util.HashSet<>(got).equals(new java.util.HashSet<>(want)) || got.size() != want.size()) {
                                assertThat(got).as("count by sym of %d rows", s.rowCount()).containsExactlyInAnyOrderElementsOf(want);
                            }
                            checks.incrementAndGet();
                        }
                    } catch (final Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "rdb-test-counter-" + t));
            }
            readers.forEach(Thread::start);
            final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
            final Random rnd = new Random(5);
            final int total = 9 * ColumnStore.CHUNK_ROWS + 4_321;
            int rows = 0;
            try {
                for (int i = 0; rows < total && failure.get() == null; i++) {
                    final int n = Math.min(total - rows, 1 + rnd.nextInt(i % 40 == 0 ? 6_000 : 400));
                    final int off = RealtimeTableTest.numberedTrade(buf, i + 1, rows, n, SymCountsTest::symOf);
                    table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                    rows += n;
                }
            } finally {
                done.set(true);
                assertThat(buf.release()).isTrue();
                for (final Thread r : readers) {
                    r.join(120_000);
                }
            }
            assertThat(readers).noneMatch(Thread::isAlive);
            assertThat(failure.get()).isNull();
            final TableSegment s = table.segment(0);
            assertThat(s.rowCount()).isEqualTo(total);
            assertThat(queried(engine, s)).as("indexed=%s", indexed).containsExactlyInAnyOrderElementsOf(scanned(s));
        }
    }
}
