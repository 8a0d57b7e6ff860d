package io.jtick.lab.compression;

import io.jtick.core.feed.SyntheticFeed;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class TableLoaderTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @Test
    void shouldLoadAFeedSourceUpToMaxRows() {
        final SymbolCatalog symbols = new SymbolCatalog();
        final SyntheticFeed feed = new SyntheticFeed("trade", 2, 7, 3, () -> 1_000L, false);
        final RealtimeTable t = TableLoader.load(feed, symbols, 250, 100);
        assertThat(t.rowCount()).isEqualTo(250);
        assertThat(t.schema()).isEqualTo(TableSchema.trade(2));
        assertThat(symbols.size()).isEqualTo(7);
        assertThat(feed.rowsRead()).isEqualTo(250);
        final ColumnChunk time = new ColumnChunk();
        t.segment(0).read(TableSchema.TIME, 0, 250, time);
        for (int r = 0; r < 250; r++) {
            assertThat(time.longs()[time.offset() + r]).isEqualTo(1_000L);
        }
    }

    @Test
    void shouldSpreadASyntheticDayOverTheSessionTenRowsPerUpdate() {
        final SymbolCatalog symbols = new SymbolCatalog();
        final TableSegment day = TableLoader.syntheticDay("quote", DAY, 5_000, 20, 1, symbols).segment((int) DAY.toEpochDay());
        assertThat(day.rowCount()).isEqualTo(5_000);
        assertThat(day.schema().name()).isEqualTo("quote");
        assertThat(day.symIdLimit()).isEqualTo(20);
        final long open = DAY.atTime(LocalTime.of(9, 30)).atZone(ZoneId.of("America/New_York")).toInstant().toEpochMilli() * 1_000_000L;
        final ColumnChunk time = new ColumnChunk();
        day.read(TableSchema.TIME, 0, day.rowCount(), time);
        final long[] t = time.longs();
        final int o = time.offset();
        assertThat(t[o]).isEqualTo(open);
        assertThat(day.timeSorted()).isTrue();
        for (int r = 1; r < day.rowCount(); r++) {
            if (r % 10 == 0) {
                assertThat(t[o + r]).as("row %s starts an update", r).isGreaterThan(t[o + r - 1]);
            } else {
                assertThat(t[o + r]).as("row %s shares its update's time", r).isEqualTo(t[o + r - 1]);
            }
        }
        assertThat(t[o + day.rowCount() - 1] - open).as("about one session").isBetween(20_000L * 1_000_000_000L, 27_000L * 1_000_000_000L);
    }
}
