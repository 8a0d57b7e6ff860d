package io.jtick.core.rdb;

import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.RowSink;
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
 * The sym index caught up by the queries (a chunk at a time, plus the partly filled last chunk)
 * while the writer keeps inserting: every reader, whichever thread caught the index up and to
 * whatever count, gets exactly its snapshot's rows of a sym, each once, in order.
 */
@ExtendWith(LeakCheck.class)
class SymIndexCatchUpTest {
    private static final int SYMS = 500;
    private static final int ROWS = 4 * ColumnStore.CHUNK_ROWS + 3_210;

    /** The sym of row {@code r}: a few syms take many rows, most few. */
    private static int symOf(final int r) {
        final int x = (int) ((r * 2_654_435_761L) >>> 7) & 0xFFFF;
        return x % 4 == 0 ? x % 5 : x % SYMS;
    }

    /** The rows of one sym the segment's index gives, checked to be ascending. */
    private static int[] indexed(final TableSegment s, final int sym) {
        final int[][] out = {new int[64]};
        final int[] n = {0};
        s.symRows(sym, new RowSink() {
            private void add(final int row) {
                if (n[0] > 0 && out[0][n[0] - 1] >= row) {
                    throw new AssertionError("rows not ascending [sym=" + sym + ", row=" + row + "]");
                }
                if (n[0] == out[0].length) {
                    out[0] = java.util.Arrays.copyOf(out[0], n[0] << 1);
                }
                out[0][n[0]++] = row;
            }

            @Override
            public void range(final int from, final int to) {
                for (int r = from; r < to; r++) {
                    add(r);
                }
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
                for (int i = from; i < to; i++) {
                    add(rows[i]);
                }
            }
        });
        return java.util.Arrays.copyOf(out[0], n[0]);
    }

    /** The rows of one sym found by reading the segment's sym column. */
    private static int[] scanned(final TableSegment s, final int sym) {
        final List<Integer> rows = new ArrayList<>();
        final ColumnChunk c = new ColumnChunk();
        for (int from = 0; from < s.rowCount(); from += TableSegment.DEFAULT_CHUNK_ROWS) {
            final int len = Math.min(TableSegment.DEFAULT_CHUNK_ROWS, s.rowCount() - from);
            s.read(TableSchema.SYM, from, len, c);
            for (int i = 0; i < len; i++) {
                if (c.ints()[c.offset() + i] == sym) {
                    rows.add(from + i);
                }
            }
        }
        return rows.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void shouldGiveEveryReaderItsSnapshotsRowsWhileTheWriterInserts() throws Exception {
        readWhileInserting(new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1));
    }

    @Test
    void shouldGiveEveryReaderItsSnapshotsRowsWhileTheAgentSortsEachFilledChunk() throws Exception {
        // the agent's thread and the readers' catch-ups race for the same chunks: each is sorted once, by whichever comes first
        try (SymIndexAgent agent = new SymIndexAgent("rdb-test-sym-index")) {
            readWhileInserting(new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1, true, new ChunkPool(), agent));
            assertThat(agent.failures()).isZero();
        }
    }

    @Test
    void shouldIndexWholeChunksOnTheAgentThreadAndLeaveTheRestToTheQuery() throws Exception {
        try (SymIndexAgent agent = new SymIndexAgent("rdb-test-sym-index")) {
            final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1, true, null, agent);
            insert(table, ROWS);
            final int whole = ROWS & ~ColumnStore.MASK;
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while ((table.indexedRows() < whole || table.countedRows() < whole) && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            // no query has run: the agent indexed and counted every whole chunk and nothing of the partly filled last one
            assertThat(table.indexedRows()).isEqualTo(whole);
            assertThat(table.countedRows()).isEqualTo(whole);
            final TableSegment s = table.segment(0);
            final long[] counted = new long[s.symIdLimit()];
            assertThat(s.symCounts(counted)).isTrue();
            final long[] expected = new long[s.symIdLimit()];
            final ColumnChunk c = new ColumnChunk();
            for (int from = 0; from < ROWS; from += TableSegment.DEFAULT_CHUNK_ROWS) {
                final int len = Math.min(TableSegment.DEFAULT_CHUNK_ROWS, ROWS - from);
                s.read(TableSchema.SYM, from, len, c);
                for (int i = 0; i < len; i++) {
                    expected[c.ints()[c.offset() + i]]++;
                }
            }
            assertThat(counted).containsExactly(expected);
            for (int sym = 0; sym < s.symIdLimit(); sym += 7) {
                assertThat(indexed(s, sym)).as("sym %d", sym).containsExactly(scanned(s, sym));
            }
            assertThat(table.indexedRows()).isEqualTo(ROWS);
            assertThat(agent.failures()).isZero();
        }
    }

    @Test
    void shouldSkipATableWhoseChunksWentBackToThePool() throws Exception {
        final ChunkPool pool = new ChunkPool();
        try (SymIndexAgent agent = new SymIndexAgent("rdb-test-sym-index")) {
            for (int t = 0; t < 6; t++) {
                // retired as soon as filled: the agent's hand-overs find the chunks held (and index them) or given back (skipped)
                final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1, true, pool, agent);
                insert(table, 3 * ColumnStore.CHUNK_ROWS + 17);
                final TableSegment s = table.segment(0);
                for (int sym = 0; sym < s.symIdLimit(); sym += 97) {
                    assertThat(indexed(s, sym)).as("table %d, sym %d", t, sym).containsExactly(scanned(s, sym));
                }
                s.close();
                table.retire();
            }
            assertThat(agent.failures()).isZero();
        }
        assertThat(pool.reused()).isPositive();
    }

    /** Inserts rows {@code 0..rows-1} (sym of row r: {@link #symOf}) in updates of varying size. */
    private static void insert(final RealtimeTable table, final int rows) {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            int done = 0;
            for (int i = 0; done < rows; i++) {
                final int n = Math.min(rows - done, 1 + (i * 7_919) % 4_000);
                final int off = RealtimeTableTest.numberedTrade(buf, i + 1, done, n, SymIndexCatchUpTest::symOf);
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                done += n;
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
    }

    private static void readWhileInserting(final RealtimeTable table) throws Exception {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong checks = new AtomicLong();
        final List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            final int seed = t;
            // reader 0 checks one sym per snapshot against a scan; 1 checks that all syms' rows add up to the snapshot;
            // 2 holds a snapshot while later catch-ups (by the others) cover more rows, then checks it
            readers.add(new Thread(() -> {
                final Random rnd = new Random(seed);
                try {
                    while (!done.get() || checks.get() < 3) {
                        final TableSegment s = table.segment(0);
                        final int n = s.rowCount();
                        if (seed == 1) {
                            long total = 0;
                            for (int sym = 0; sym < s.symIdLimit(); sym++) {
                                total += indexed(s, sym).length;
                            }
                            if (total != n) {
                                throw new AssertionError("rows by sym add up to " + total + " [rows=" + n + "]");
                            }
                        } else {
                            if (seed == 2) {
                                final long until = table.rowCount() + 20_000L;
                                while (table.rowCount() < until && !done.get()) {
                                    Thread.onSpinWait();
                                }
                            }
                            final int sym = s.symIdLimit() == 0 ? 0 : rnd.nextInt(s.symIdLimit());
                            final int[] want = scanned(s, sym);
                            final int[] got = indexed(s, sym);
                            if (!java.util.Arrays.equals(got, want)) {
                                assertThat(got).as("sym %d of %d rows", sym, n).containsExactly(want);
                            }
                        }
                        checks.incrementAndGet();
                    }
                } catch (final Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "rdb-test-reader-" + t));
        }
        readers.forEach(Thread::start);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        final Random rnd = new Random(11);
        int rows = 0;
        try {
            for (int i = 0; rows < ROWS && failure.get() == null; i++) {
                final int n = Math.min(ROWS - rows, 1 + rnd.nextInt(i % 50 == 0 ? 5_000 : 300));
                final int off = RealtimeTableTest.numberedTrade(buf, i + 1, rows, n, SymIndexCatchUpTest::symOf);
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
        assertThat(s.rowCount()).isEqualTo(ROWS);
        for (int sym = 0; sym < s.symIdLimit(); sym += 37) {
            assertThat(indexed(s, sym)).containsExactly(scanned(s, sym));
        }
    }

    @Test
    void shouldAnswerQueriesAsATableWithoutTheIndexDoes() {
        final SymbolCatalog catalog = new SymbolCatalog();
        final RealtimeTable indexed = new RealtimeTable(TableSchema.trade(0), catalog, 1, true);
        final RealtimeTable scanned = new RealtimeTable(TableSchema.trade(0), catalog, 1, false);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        final QueryEngine engine = new QueryEngine();
        final String[] queries = {
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"}},\"by\":[\"sym\"]}",
            "{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"S3\",\"S77\",\"S499\"]}},\"select\":[\"time\",\"sym\",\"size\"]}",
            "{\"table\":\"trade\",\"where\":{\"sym\":\"S1\",\"time\":{\"within\":[40000,150000]}},\"select\":{\"n\":{\"count\":\"*\"}}}",
        };
        int rows = 0;
        try {
            for (int i = 0; rows < ROWS; i++) {
                final int n = Math.min(ROWS - rows, 1 + (i * 7_919) % 4_000);
                final int off = RealtimeTableTest.numberedTrade(buf, i + 1, rows, n, SymIndexCatchUpTest::symOf);
                indexed.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                scanned.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                rows += n;
                if (i % 40 == 0) {
                    // queries between inserts: each catches the index up to the rows inserted since the one before
                    for (final String q : queries) {
                        final ResultTable a = engine.query(q, new MemorySource().add(indexed.segment(0)));
                        final ResultTable b = engine.query(q, new MemorySource().add(scanned.segment(0)));
                        assertThat(a.rows()).as("%s after %d rows", q, indexed.rowCount()).containsExactlyInAnyOrderElementsOf(b.rows());
                    }
                }
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
        for (final String q : queries) {
            assertThat(engine.query(q, new MemorySource().add(indexed.segment(0))).rows())
                .containsExactlyInAnyOrderElementsOf(engine.query(q, new MemorySource().add(scanned.segment(0))).rows());
        }
    }
}
