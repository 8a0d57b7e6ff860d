package io.jtick.core.warmup;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, WAIT, 1, false, List.of(), 2);
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
            ColumnEncoding.parse("auto/lz4")), 2);
        assertThat(w.await(WAIT)).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.rounds()).isEqualTo(1);
        assertThat(warmUpDirs()).isEqualTo(before);
    }

    @Test
    void shouldGoOnPastItsRoundsUntilTheJitHasNothingLeftToCompile() throws InterruptedException {
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, WAIT, 1, true, List.of(), 2);
        assertThat(w.await(WAIT.multipliedBy(2))).isTrue();
        assertThat(w.failure()).isNull();
        assertThat(w.settled()).isTrue();
        assertThat(w.rounds()).isGreaterThan(1);
    }

    @Test
    void shouldStopWhenItsTimeIsSpent() throws InterruptedException {
        final QueryWarmUp w = QueryWarmUp.start(QueryWarmUp.Kind.RDB, Duration.ZERO, 100, true, List.of(), 1);
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
        assertThatThrownBy(() -> QueryWarmUp.start(QueryWarmUp.Kind.HDB, WAIT, 1, false, List.of(), 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind=HDB");
    }

    @Test
    void shouldPutTheDayThroughTheInsertPath() {
        final List<RealtimeTable> tables = WarmUpDay.tables(25_000, 50);
        assertThat(tables).extracting(RealtimeTable::name).containsExactly("trade", "quote");
        assertThat(tables).allSatisfy(t -> assertThat(t.rowCount()).isEqualTo(25_000));
    }

    private static List<Path> warmUpDirs() throws IOException {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("jtick-warm-up")).sorted().toList();
        }
    }
}
