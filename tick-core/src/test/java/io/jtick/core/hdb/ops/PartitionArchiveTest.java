package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.write.PartitionWriterTest;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class PartitionArchiveTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path dir;

    /** Writes trade (and quote) for {@code day} under {@code root} as the RDB's end of day does. */
    private PartitionWriter.Written writeDay(final Path root, final LocalDate day, final int tradeRows, final long seed)
        throws IOException {
        return new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("lz4"))).write(day, List.of(
            SyntheticDay.segment("trade", day, tradeRows, 17, seed), SyntheticDay.segment("quote", day, 700, 13, seed + 1)));
    }

    private static byte[] archive(final Path dateDir, final List<String> tables) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        PartitionArchive.write(dateDir, tables, out);
        return out.toByteArray();
    }

    private static List<String> leftovers(final Path root) throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
        }
    }

    @Test
    void shouldMoveADayFromOneRootToAnotherRowForRow() throws IOException {
        final PartitionWriter.Written w = writeDay(dir.resolve("rdb"), DAY, 5000, 1);
        final Path hdb = dir.resolve("hdb");
        final PartitionArchive.Installed in = PartitionArchive.install(new ByteArrayInputStream(archive(w.directory(),
            List.of("trade", "quote"))), hdb, DAY, Long.MAX_VALUE);
        assertThat(in.tables()).containsExactly("quote", "trade");
        assertThat(in.rows()).isEqualTo(5700);
        assertThat(in.directory()).isEqualTo(hdb.resolve("2026-11-20"));
        for (final String table : List.of("trade", "quote")) {
            try (PartitionTable sent = PartitionTable.open(w.directory().resolve(table));
                 PartitionTable got = PartitionTable.open(hdb.resolve("2026-11-20").resolve(table))) {
                assertThat(PartitionWriterTest.rowsAsStrings(got)).isEqualTo(PartitionWriterTest.rowsAsStrings(sent));
                assertThat(got.column(3).encoding().toString()).isEqualTo("lz4");
            }
        }
        assertThat(leftovers(hdb)).as("no temporary directory left").isEmpty();
    }

    @Test
    void shouldReplaceTheTablesItBringsAndKeepTheOthers() throws IOException {
        final Path hdb = dir.resolve("hdb");
        writeDay(hdb, DAY, 1000, 1);
        final PartitionWriter.Written again = writeDay(dir.resolve("rdb"), DAY, 2500, 9);
        PartitionArchive.install(new ByteArrayInputStream(archive(again.directory(), List.of("trade"))), hdb, DAY, Long.MAX_VALUE);
        try (PartitionTable trade = PartitionTable.open(hdb.resolve("2026-11-20/trade"));
             PartitionTable quote = PartitionTable.open(hdb.resolve("2026-11-20/quote"))) {
            assertThat(trade.rowCount()).isEqualTo(2500);
            assertThat(quote.rowCount()).as("a table the archive does not hold stays").isEqualTo(700);
        }
        try (Stream<Path> s = Files.list(hdb.resolve("2026-11-20"))) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("trade", "quote");
        }
    }

    @Test
    void shouldRefuseADayArrivingAsAnotherAndLeaveTheRootAsItWas() throws IOException {
        final PartitionWriter.Written w = writeDay(dir.resolve("rdb"), DAY, 100, 1);
        final Path hdb = Files.createDirectories(dir.resolve("hdb"));
        assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream(archive(w.directory(), List.of("trade"))), hdb,
            DAY.plusDays(1), Long.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("metadata names another partition [arrived-as=2026-11-21/trade, metadata=2026-11-20/trade]");
        try (Stream<Path> s = Files.list(hdb)) {
            assertThat(s).as("nothing installed, nothing left").isEmpty();
        }
    }

    @Test
    void shouldRefuseDamagedTruncatedOversizedAndHostileArchives() throws IOException {
        final PartitionWriter.Written w = writeDay(dir.resolve("rdb"), DAY, 3000, 1);
        final Path hdb = Files.createDirectories(dir.resolve("hdb"));
        final byte[] good = archive(w.directory(), List.of("trade"));

        final byte[] flipped = good.clone();
        flipped[good.length / 2] ^= 0x40;
        assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream(flipped), hdb, DAY, Long.MAX_VALUE))
            .isInstanceOfAny(IllegalArgumentException.class, CorruptPartitionException.class);

        final byte[] cut = Arrays.copyOf(good, good.length / 3);
        assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream(cut), hdb, DAY, Long.MAX_VALUE))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends early");

        assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream(good), hdb, DAY, 1000))
            .hasMessageContaining("larger than allowed [maxBytes=1000]");

        assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream("not a zip".getBytes()), hdb, DAY, Long.MAX_VALUE))
            .hasMessageContaining("holds no table");

        for (final String name : List.of("../evil", "trade/../../evil", "/abs/x", "trade/sub/x", "trade/..")) {
            final ByteArrayOutputStream bad = new ByteArrayOutputStream();
            try (ZipOutputStream z = new ZipOutputStream(bad)) {
                z.putNextEntry(new ZipEntry(name));
                z.write(1);
                z.closeEntry();
            }
            assertThatThrownBy(() -> PartitionArchive.install(new ByteArrayInputStream(bad.toByteArray()), hdb, DAY, Long.MAX_VALUE))
                .as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[entry=" + name + "]");
        }
        try (Stream<Path> s = Files.list(hdb)) {
            assertThat(s).as("nothing installed, nothing left").isEmpty();
        }
        assertThat(Files.exists(dir.resolve("evil"))).isFalse();
    }

    @Test
    void shouldWriteOnlyTables() throws IOException {
        final PartitionWriter.Written w = writeDay(dir.resolve("rdb"), DAY, 10, 1);
        assertThatThrownBy(() -> archive(w.directory(), List.of("nope"))).hasMessageContaining("not a table of the partition");
        assertThatThrownBy(() -> archive(w.directory(), List.of("../rdb"))).hasMessageContaining("not a table of the partition");
    }
}
