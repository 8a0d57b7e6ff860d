package io.jtick.core.hdb.format;

import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A partition's table as a TableSegment: sym index, range and listed-row reads over encoded blocks, lifetime. */
@ExtendWith(LeakCheck.class)
class PartitionTableTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    private Path write(final String encoding) throws IOException {
        final MemorySegment day = SyntheticDay.segment("quote", DAY, 12_000, 25, 4);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse(encoding)), 4096, 2, PartitionWriter.WriteHook.NONE)
            .write(DAY, List.of(day));
        return root.resolve("2026-11-20/quote");
    }

    @Test
    void shouldDescribeItselfAsASymPartedSegmentOfItsDate() throws IOException {
        try (PartitionTable t = PartitionTable.open(write("none"))) {
            assertThat(t.epochDay()).isEqualTo((int) DAY.toEpochDay());
            assertThat(t.rowCount()).isEqualTo(12_000);
            assertThat(t.symParted()).isTrue();
            assertThat(t.timeSorted()).as("25 syms: sym order is not time order").isFalse();
            assertThat(t.symIdLimit()).isEqualTo(t.syms().count()).isEqualTo(25);
            assertThat(t.symId("S0004")).isEqualTo(4);
            assertThat(t.symName(4)).isEqualTo("S0004");
            assertThat(t.symId("NOPE")).isEqualTo(-1);
            assertThat(Cells.symRows(t, "S0004")).hasSize(t.syms().to(4) - t.syms().from(4)).first().isEqualTo(t.syms().from(4));
            assertThat(Cells.symRows(t, "NOPE")).isEmpty();
            assertThat(t.chunkRows()).as("a decoded time block (512 rows here), at least 1024").isEqualTo(1024);
        }
    }

    @Test
    void shouldReadRangesRunsAndScatteredRowsAlikeInEveryEncoding() throws IOException {
        for (final String encoding : List.of("none", "auto/lz4", "delta+shuffle/zstd:3")) {
            PartitionStore.deleteRecursively(root);
            try (PartitionTable t = PartitionTable.open(write(encoding))) {
                for (int c = 0; c < t.schema().columnCount(); c++) {
                    final ColumnChunk range = new ColumnChunk();
                    t.read(c, 1_000, 3_000, range);
                    final int[] run = new int[3_000];
                    for (int i = 0; i < run.length; i++) {
                        run[i] = 1_000 + i;
                    }
                    final ColumnChunk runs = new ColumnChunk();
                    t.read(c, run, 0, run.length, runs);
                    final int[] scattered = new int[500];
                    for (int i = 0; i < scattered.length; i++) {
                        scattered[i] = (11_999 - i * 23) % 12_000;
                    }
                    final ColumnChunk gathered = new ColumnChunk();
                    t.read(c, scattered, 0, scattered.length, gathered);
                    for (int i = 0; i < run.length; i++) {
                        assertThat(value(t, c, range, i)).as("%s column %s row %s", encoding, c, run[i])
                            .isEqualTo(value(t, c, runs, i)).isEqualTo(Cells.number(t, c, run[i]));
                    }
                    for (int i = 0; i < scattered.length; i++) {
                        assertThat(value(t, c, gathered, i)).as("%s column %s row %s", encoding, c, scattered[i])
                            .isEqualTo(Cells.number(t, c, scattered[i]));
                    }
                }
            }
        }
    }

    @Test
    void shouldFindTimesWithinASymByBinarySearchInEveryEncoding() throws IOException {
        for (final String encoding : List.of("none", "auto/lz4", "delta+shuffle/zstd:3")) {
            PartitionStore.deleteRecursively(root);
            try (PartitionTable t = PartitionTable.open(write(encoding))) {
                final ColumnChunk probe = new ColumnChunk();
                for (int k = 0; k < t.syms().count(); k += 6) {
                    final int from = t.syms().from(k);
                    final int to = t.syms().to(k);
                    final ColumnFile time = t.column(TableSchema.TIME);
                    final long[] probes = {Long.MIN_VALUE + 1, time.getLong(from), time.getLong((from + to) / 2),
                        time.getLong((from + to) / 2) + 1, time.getLong(to - 1), time.getLong(to - 1) + 1};
                    for (final long at : probes) {
                        int expected = from;
                        while (expected < to && time.getLong(expected) < at) {
                            expected++;
                        }
                        assertThat(t.lowerBound(TableSchema.TIME, from, to, at, probe)).as("%s sym %s time %s", encoding, k, at)
                            .isEqualTo(expected).isEqualTo(t.lowerBound(from, to, at));
                    }
                }
            }
        }
    }

    @Test
    void shouldReadAPartitionWrittenInTheVersionOneLayout() throws IOException {
        for (final String encoding : List.of("none", "auto/lz4", "delta+shuffle/zstd:3")) {
            PartitionStore.deleteRecursively(root);
            final Path current = write(encoding);
            final Path old = root.resolve("v1/quote");
            Files.createDirectories(old);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(current)) {
                for (final Path f : files) {
                    Files.copy(f, old.resolve(f.getFileName()));
                }
            }
            final Path meta = old.resolve(TableMeta.FILE);
            final String yaml = Files.readString(meta);
            assertThat(yaml).contains("format: 3");
            Files.writeString(meta, yaml.replace("format: 3", "format: 1"));
            try (DirectoryStream<Path> files = Files.newDirectoryStream(old, f -> !f.getFileName().toString().startsWith("."))) {
                for (final Path f : files) {
                    ColumnFileTest.toVersionOne(f);
                }
            }
            try (PartitionTable v2 = PartitionTable.open(current); PartitionTable v1 = PartitionTable.open(old)) {
                assertThat(v1.column(TableSchema.TIME).version()).isEqualTo(1);
                assertThat(v2.column(TableSchema.TIME).version()).isEqualTo(encoding.contains("lz4") ? 3 : 2);
                assertThat(v1.rowCount()).isEqualTo(v2.rowCount());
                for (int c = 0; c < v2.schema().columnCount(); c++) {
                    final ColumnChunk a = new ColumnChunk();
                    final ColumnChunk b = new ColumnChunk();
                    v1.read(c, 0, v1.rowCount(), a);
                    v2.read(c, 0, v2.rowCount(), b);
                    for (int r = 0; r < v2.rowCount(); r++) {
                        assertThat(value(v1, c, a, r)).as("%s column %s row %s", encoding, c, r).isEqualTo(value(v2, c, b, r))
                            .isEqualTo(Cells.number(v1, c, r)).isEqualTo(Cells.number(v2, c, r));
                    }
                }
                final ColumnChunk probe = new ColumnChunk();
                for (int k = 0; k < v2.syms().count(); k += 4) {
                    final int from = v2.syms().from(k);
                    final int to = v2.syms().to(k);
                    final long mid = v2.column(TableSchema.TIME).getLong((from + to) / 2);
                    assertThat(v1.lowerBound(TableSchema.TIME, from, to, mid, probe)).as("%s sym %s", encoding, k)
                        .isEqualTo(v2.lowerBound(TableSchema.TIME, from, to, mid, probe));
                }
            }
        }
    }

    @Test
    void shouldRefuseReadsOnceTheLastReferenceIsGone() throws IOException {
        final PartitionTable t = PartitionTable.open(write("none"));
        assertThat(t.retain()).isTrue();
        t.close();
        assertThat(Cells.time(t, 0)).as("a reader still holds it").isPositive();
        t.release();
        assertThat(t.retain()).isFalse();
        assertThatThrownBy(() -> t.read(TableSchema.TIME, 0, 1, new ColumnChunk())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
    }

    private static double value(final PartitionTable t, final int column, final ColumnChunk c, final int i) {
        final int at = c.offset() + i;
        return switch (t.schema().type(column)) {
            case TIMESTAMP, INT64 -> c.longs()[at];
            case FLOAT64 -> c.doubles()[at];
            case SYMBOL, INT32 -> c.ints()[at];
            case FLOAT32 -> c.floats()[at];
            case INT16 -> c.shorts()[at];
            default -> c.bytes()[at];
        };
    }
}
