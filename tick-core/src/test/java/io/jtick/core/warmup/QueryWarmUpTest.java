package io.jtick.core.warmup;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.format.Transform;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's slice threads are made once per process (as in QueryEngineTest); the warm-up's own thread must be gone. */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(ignoreThreads = "jtick-query-slice-\\d+-\\d+")
class QueryWarmUpTest {
    private static final Duration WAIT = Duration.ofMinutes(2);

    @Test
    void shouldRunEveryShapeOverRdbTables() throws InterruptedException {
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, WAIT, 1, false, List.of(), 2, false);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.rounds()).isEqualTo(1);
        assertThat(w.settled()).isFalse();
        assertThat(w.nanos()).isPositive();
    }

    @Test
    void shouldRunOverHdbPartitionsOfEachEncodingAndDeleteThem() throws InterruptedException, IOException {
        final List<Path> before = warmUpDirs();
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.HDB, WAIT, 1, false, List.of(ColumnEncoding.PLAIN,
            ColumnEncoding.parse("auto/lz4")), 2, false);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.rounds()).isEqualTo(1);
        assertThat(warmUpDirs()).isEqualTo(before);
    }

    @Test
    void shouldDecodeTheEncodedPartitionsAgainInEveryRoundInsteadOfReadingThemFromTheCache() throws InterruptedException {
        final long one = decodedBlockMisses(1);
        final long three = decodedBlockMisses(3);
        assertThat(one).isPositive();
        assertThat(three).as("rounds 2 and 3 miss the cache as round 1 did (partitions opened afresh), not hit it")
            .isGreaterThanOrEqualTo(2 * one);
    }

    @Test
    void shouldWriteItsDayWithTheTransformsARealDayGets(@TempDir final Path root) throws IOException {
        final List<TableSegment> segments = new ArrayList<>();
        for (final RealtimeTable t : WarmUpDay.tables(QueryWarmUp.ROWS, QueryWarmUp.SYMS)) {
            segments.add(t.segment(WarmUpDay.EPOCH_DAY));
        }
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/lz4")))
            .write(LocalDate.ofEpochDay(WarmUpDay.EPOCH_DAY), segments);
        final Path day = root.resolve(LocalDate.ofEpochDay(WarmUpDay.EPOCH_DAY).toString());
        // prices in cents and whole-microsecond times: scaled, delta, shuffled, as the HDB stores a recorded day's
        for (final String column : List.of("trade/price", "trade/time", "quote/bid", "quote/ask", "quote/time")) {
            final ColumnType type = column.endsWith("time") ? ColumnType.TIMESTAMP : ColumnType.FLOAT64;
            try (ColumnFile f = ColumnFile.open(day.resolve(column), type, QueryWarmUp.ROWS)) {
                assertThat(f.encoding().transform()).as(column).isEqualTo(Transform.parse("scale-delta+shuffle"));
            }
        }
    }

    /** Cache misses of an HDB warm-up of {@code rounds} rounds over an {@code auto/lz4} partition. */
    private static long decodedBlockMisses(final int rounds) throws InterruptedException {
        final long before = DecodedBlockCache.shared().misses();
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.HDB, WAIT, rounds, false,
            List.of(ColumnEncoding.parse("auto/lz4")), 1, false);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.rounds()).isEqualTo(rounds);
        return DecodedBlockCache.shared().misses() - before;
    }

    @Test
    void shouldGoOnPastItsRoundsUntilTheJitHasNothingLeftToCompile() throws InterruptedException {
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, WAIT, 1, true, List.of(), 2, false);
        assertThat(w.await(WAIT.multipliedBy(2))).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.settled()).isTrue();
        assertThat(w.rounds()).isGreaterThan(1);
    }

    @Test
    void shouldRunOneFullCollectionWhenDoneWhenAskedToReturnItsHeap() throws InterruptedException {
        final GarbageCollectorMXBean full = TestSupport.g1FullCollections();
        final long before = full.getCollectionCount();
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, WAIT, 1, false, List.of(), 1, true);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(full.getCollectionCount()).isGreaterThan(before);
    }

    @Test
    void shouldStopWhenItsTimeIsSpent() throws InterruptedException {
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, Duration.ZERO, 100, true, List.of(), 1, false);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.rounds()).isZero();
    }

    @Test
    void shouldDoNothingWhenOff() {
        final QueryWarmUp w = QueryWarmUp.off();
        assertThat(w.isDone()).isTrue();
        assertThat(w.rounds()).isZero();
        assertThat(w.nanos()).isZero();
    }

    @Test
    void shouldRefuseAnHdbWarmUpWithoutEncodings() {
        assertThatThrownBy(() -> QueryWarmUp.start(QueryWarmUp.Kind.HDB, WAIT, 1, false, List.of(), 1, false))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind=HDB");
    }

    @Test
    void shouldPutTheDayThroughTheInsertPath() {
        final List<RealtimeTable> tables = WarmUpDay.tables(25_000, 50);
        assertThat(tables).extracting(RealtimeTable::name).containsExactly("trade", "quote");
        assertThat(tables).allSatisfy(t -> assertThat(t.rowCount()).isEqualTo(25_000));
    }

    @Test
    void shouldGiveTheOneSymATradeBeforeItsFirstQuoteAndTwoAfterItsLast() {
        final List<RealtimeTable> tables = WarmUpDay.tables(QueryWarmUp.ROWS, QueryWarmUp.SYMS);
        final TableSegment trade = tables.get(0).segment(WarmUpDay.EPOCH_DAY);
        final TableSegment quote = tables.get(1).segment(WarmUpDay.EPOCH_DAY);
        final String one = WarmUpDay.sym(WarmUpDay.ONE);
        final List<Integer> trades = Cells.symRows(trade, one);
        final List<Integer> quotes = Cells.symRows(quote, one);
        final int rows = QueryWarmUp.ROWS;
        assertThat(trades.get(0)).as("the day's first trade").isZero();
        assertThat(trades.subList(trades.size() - 2, trades.size())).as("the day's last two trades").containsExactly(rows - 2, rows - 1);
        assertThat(quotes.get(quotes.size() - 1)).as("not the day's last two quotes").isLessThan(rows - 2);
        assertThat(Cells.time(trade, trades.get(0))).as("first trade before the first quote")
            .isLessThan(Cells.time(quote, quotes.get(0)));
        assertThat(Cells.time(trade, trades.get(trades.size() - 2))).as("last two trades after the last quote")
            .isGreaterThan(Cells.time(quote, quotes.get(quotes.size() - 1)));
    }

    @Test
    void shouldGiveTheOneSymBarsOfManyRowsAndAThinSymBarsOfFew() {
        final TableSegment trade = WarmUpDay.tables(QueryWarmUp.ROWS, QueryWarmUp.SYMS).get(0).segment(WarmUpDay.EPOCH_DAY);
        final int minutes = 390;
        // the grouped kernels fold a batch as runs when its runs average 4 rows or more
        assertThat(Cells.symRows(trade, WarmUpDay.sym(WarmUpDay.ONE))).hasSizeGreaterThan(4 * minutes);
        assertThat(Cells.symRows(trade, WarmUpDay.sym(WarmUpDay.ONE + 1))).hasSizeLessThan(4 * minutes);
    }

    private static List<Path> warmUpDirs() throws IOException {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("jtick-warm-up")).sorted().toList();
        }
    }
}
