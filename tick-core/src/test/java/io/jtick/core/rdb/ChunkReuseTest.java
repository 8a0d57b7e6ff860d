package io.jtick.core.rdb;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ControlFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The RDB's tables grow from the chunks of the day before ({@link ChunkPool}), and a query that
 * started before end of day still reads that day's rows, whatever the next day writes meanwhile.
 */
@ExtendWith(LeakCheck.class)
class ChunkReuseTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final long T0 = 1_763_700_000_000_000_000L;
    private static final String[] SYMS = {"A", "B", "C", "D"};
    /** More than one full chunk, so that the day's tables hold full-size chunks to give back. */
    private static final int DAY_ROWS = ColumnStore.CHUNK_ROWS + 7_000;
    private static final int DAY = 20_413;

    private final TickMetrics metrics = new TickMetrics();
    private RealtimeDatabase rdb;
    private ByteBuf buf;
    private long sequence;

    @BeforeEach
    void setUp() {
        rdb = new RealtimeDatabase(metrics, (day, tables) -> {
        }, List.of(), 4, Set.of());
        // a plain heap buffer: the leak detector (paranoid in tests) would record every one of the 500k value writes
        buf = Unpooled.wrappedBuffer(new byte[1 << 20]).clear();
        rdb.onSubscribed(new ControlFrames.Subscribed(0, 0, DAY, Map.of("trade", TRADE)));
    }

    @AfterEach
    void tearDown() {
        assertThat(buf.release()).isTrue();
    }

    /** {@code rows} trades, price {@code base + row}, syms A, B, C, D in turn, in updates of 5,000 rows. */
    private void fill(final int rows, final double base) {
        for (int from = 0; from < rows; from += 5_000) {
            final int n = Math.min(5_000, rows - from);
            final long[] time = new long[n];
            final String[] sym = new String[n];
            final double[] price = new double[n];
            final long[] size = new long[n];
            final byte[] cond = new byte[n];
            for (int i = 0; i < n; i++) {
                time[i] = T0 + from + i;
                sym[i] = SYMS[(from + i) % SYMS.length];
                price[i] = base + from + i;
                size[i] = from + i;
                cond[i] = 'B';
            }
            buf.clear();
            final int off = RdbFrames.write(buf, TRADE, ++sequence, T0, time, sym, SYMS, price, size, cond);
            rdb.onUpdate(TRADE, RdbFrames.decode(buf, off), T0);
        }
    }

    private void endOfDay(final int day) {
        rdb.onEndOfDay(day, ++sequence);
    }

    /** A source that hands out one segment taken earlier, as the RDB would have at the query's start. */
    private static QuerySource startedWith(final TableSegment segment) {
        return new QuerySource() {
            @Override
            public TableSchema schema(final String table) {
                return segment.schema();
            }

            @Override
            public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
                return List.of(segment);
            }
        };
    }

    private static List<Object> aggregate(final QuerySource source, final String sym) {
        return new QueryEngine().query("{\"table\":\"trade\",\"where\":{\"sym\":\"" + sym + "\"},"
            + "\"select\":{\"n\":{\"count\":\"*\"},\"p\":{\"sum\":\"price\"},\"s\":{\"max\":\"size\"}}}", source).rows().get(0);
    }

    /** count, sum of price and max size of sym B's rows among {@code rows} rows of {@link #fill}. */
    private static List<Object> expected(final int rows, final double base) {
        long count = 0;
        double sum = 0;
        long max = 0;
        for (int r = 1; r < rows; r += SYMS.length) {
            count++;
            sum += base + r;
            max = r;
        }
        return List.of(count, sum, max);
    }

    @Test
    void shouldAnswerAQueryStartedBeforeEndOfDayFromThatDaysRowsWhileTheNextDayReusesTheMemory() {
        fill(DAY_ROWS, 1_000);
        final TableSegment early = rdb.segments("trade", DAY, DAY, null).get(0);
        endOfDay(DAY);
        assertThat(rdb.chunkPool().bytes()).as("the open query holds the day's chunks").isZero();

        fill(DAY_ROWS, -1_000_000);
        assertThat(rdb.chunkPool().reused()).as("nothing reused while the query holds it").isZero();
        final ColumnChunk price = new ColumnChunk();
        early.read(2, DAY_ROWS - 10, 10, price);
        assertThat(price.doubles()[price.offset() + 9]).isEqualTo(1_000 + DAY_ROWS - 1);
        assertThat(aggregate(startedWith(early), "B")).as("the engine closes the segment when done")
            .isEqualTo(expected(DAY_ROWS, 1_000));
        assertThat(rdb.chunkPool().bytes()).as("the day's full-size chunks came back").isPositive();
        assertThat(metrics.gauges().get("tick.rdb.chunk.pool.bytes").getAsLong()).isEqualTo(rdb.chunkPool().bytes());

        // the next day is written into those chunks, not zeroed: a shorter day leaves old values past its rows
        endOfDay(DAY + 1);
        final int shorter = ColumnStore.CHUNK_ROWS + 100;
        fill(shorter, 5);
        assertThat(rdb.chunkPool().reused()).isPositive();
        assertThat(rdb.rowCount("trade")).isEqualTo(shorter);
        assertThat(aggregate(rdb, "B")).isEqualTo(expected(shorter, 5));
    }

    @Test
    void shouldGiveTheSymIndexRowListsBackWithTheChunksAndIndexTheNextDayFromThem() {
        final int first = 2 * ColumnStore.CHUNK_ROWS + 10;
        fill(first, 1_000);
        assertThat(aggregate(rdb, "B")).as("indexes two whole chunks").isEqualTo(expected(first, 1_000));
        endOfDay(DAY);
        long chunkRow = 0;
        for (final ColumnType t : types()) {
            chunkRow += ColumnStore.arrayBytes(t, ColumnStore.CHUNK_ROWS);
        }
        final long list = ColumnStore.arrayBytes(ColumnType.INT32, ColumnStore.CHUNK_ROWS);
        assertThat(rdb.chunkPool().bytes()).as("three chunks per column (the third one partly filled) and the index's two row lists")
            .isEqualTo(3 * chunkRow + 2 * list);

        final int next = 3 * ColumnStore.CHUNK_ROWS + 5;
        fill(next, -7);
        assertThat(aggregate(rdb, "B")).isEqualTo(expected(next, -7));
        assertThat(rdb.chunkPool().reused()).as("three chunk rows for the columns, the two int[] left for the index")
            .isEqualTo(3L * TRADE.columnCount() + 2);
        assertThat(rdb.chunkPool().bytes()).isZero();
    }

    @Test
    void shouldGiveTheChunksBackOnlyOnceEveryHolderLetGo() {
        final SymbolCatalog symbols = new SymbolCatalog();
        final ChunkPool pool = new ChunkPool();
        final RealtimeTable table = new RealtimeTable(TRADE, symbols, 2 * ColumnStore.CHUNK_ROWS, true, pool);
        final TableSegment a = table.segment(DAY);
        final TableSegment b = table.segment(DAY);
        table.retire();
        table.retire();
        a.close();
        a.close();
        assertThat(pool.bytes()).as("b still open").isZero();
        b.close();
        long twoChunksPerColumn = 0;
        for (final ColumnType t : types()) {
            twoChunksPerColumn += 2 * ColumnStore.arrayBytes(t, ColumnStore.CHUNK_ROWS);
        }
        assertThat(pool.bytes()).isEqualTo(twoChunksPerColumn);
        assertThat(table.trySegment(DAY)).isNull();
        assertThatThrownBy(() -> table.segment(DAY)).isInstanceOf(IllegalStateException.class)
            .hasMessage("table retired, its memory reused [table=trade]");

        final RealtimeTable next = new RealtimeTable(TRADE, symbols, 2 * ColumnStore.CHUNK_ROWS, true, pool);
        assertThat(pool.bytes()).isZero();
        assertThat(pool.reused()).isEqualTo(2L * TRADE.columnCount());
        next.retire();
    }

    @Test
    void shouldLetGoOfASegmentNobodyClosedOnceItIsUnreachable() throws InterruptedException {
        final ChunkPool pool = new ChunkPool();
        final RealtimeTable table = new RealtimeTable(TRADE, new SymbolCatalog(), ColumnStore.CHUNK_ROWS, true, pool);
        forget(table);
        table.retire();
        final long deadline = System.nanoTime() + 20_000_000_000L;
        Object[] got = null;
        while (got == null && System.nanoTime() < deadline) {
            System.gc();
            got = pool.take(types());
            if (got == null) {
                Thread.sleep(10);
            }
        }
        assertThat(got).as("the forgotten segment's hold released by the GC").isNotNull();
    }

    @Test
    void shouldKeepNoMoreThanTheChunkPoolSizeAfterEndOfDayAndStillAnswer() {
        long oneChunkPerColumn = 0;
        for (final ColumnType t : types()) {
            oneChunkPerColumn += ColumnStore.arrayBytes(t, ColumnStore.CHUNK_ROWS);
        }
        final long cap = oneChunkPerColumn + oneChunkPerColumn / 2;
        final RealtimeDatabase capped = new RealtimeDatabase(metrics, (day, tables) -> {
        }, List.of(), 4, Set.of(), cap);
        final RealtimeDatabase none = new RealtimeDatabase(new TickMetrics(), (day, tables) -> {
        }, List.of(), 4, Set.of(), 0);
        for (final RealtimeDatabase db : List.of(capped, none)) {
            db.onSubscribed(new ControlFrames.Subscribed(0, 0, DAY, Map.of("trade", TRADE)));
            rdb = db;
            fill(3 * ColumnStore.CHUNK_ROWS, 1_000);
            endOfDay(DAY);
        }
        assertThat(capped.chunkPool().bytes()).as("three chunks per column retired, at most the cap kept")
            .isPositive().isLessThanOrEqualTo(cap);
        assertThat(none.chunkPool().bytes()).isZero();

        for (final RealtimeDatabase db : List.of(capped, none)) {
            rdb = db;
            fill(DAY_ROWS, 7);
            assertThat(aggregate(db, "B")).isEqualTo(expected(DAY_ROWS, 7));
        }
        assertThat(none.chunkPool().reused()).isZero();
        assertThat(capped.chunkPool().reused()).isPositive();
        assertThatThrownBy(() -> new RealtimeDatabase(new TickMetrics(), EndOfDayHandler.NONE, List.of(), 4, Set.of(), -1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chunk pool");
    }

    private static void forget(final RealtimeTable table) {
        assertThat(table.segment(DAY).rowCount()).isZero();
    }

    private static ColumnType[] types() {
        final ColumnType[] t = new ColumnType[TRADE.columnCount()];
        for (int c = 0; c < t.length; c++) {
            t[c] = TRADE.type(c);
        }
        return t;
    }
}
