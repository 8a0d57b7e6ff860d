package io.jtick.parquet;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./jtick export parquet} then {@code ./jtick import parquet} of what it wrote: the same rows in the same days. */
@ExtendWith(LeakCheck.class)
class ParquetCliTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);

    @TempDir
    Path root;
    @TempDir
    Path out;
    @TempDir
    Path back;

    @Test
    void shouldExportAndImportFromTheCommandLine() throws Exception {
        new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(D1,
            List.of(SyntheticDay.segment("trade", D1, 5_000, 8, 4), SyntheticDay.segment("quote", D1, 5_000, 8, 5)));
        final ByteArrayOutputStream o = new ByteArrayOutputStream();
        final ByteArrayOutputStream e = new ByteArrayOutputStream();
        assertThat(ParquetCli.export(new String[] {"export", "parquet", "--from", "2026-09-01", "--out", out.toString(), "--root",
            root.toString(), "--tables", "trade"}, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true,
            StandardCharsets.UTF_8))).as(e.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(o.toString(StandardCharsets.UTF_8)).contains("2026-09-01 trade", "5,000 rows");
        assertThat(Files.exists(out.resolve("date=2026-09-01/trade.parquet"))).isTrue();
        assertThat(Files.exists(out.resolve("date=2026-09-01/quote.parquet"))).as("only the tables asked").isFalse();
        assertThat(ParquetCli.export(new String[] {"export", "parquet", "--out", out.toString()}, System.out,
            new PrintStream(e, true, StandardCharsets.UTF_8))).as("--from is required").isEqualTo(2);

        final AtomicReference<HdbImport.Report> report = new AtomicReference<>();
        assertThat(ParquetCli.importFiles(new String[] {"import", "parquet", "--file", out.toString(), "--root", back.toString(),
            "--table", "trade"}, System.out, System.err, report)).as(String.valueOf(report.get())).isZero();
        assertThat(report.get().rowsWritten()).isEqualTo(5_000);
        try (HistoricalDatabase hdb = new HistoricalDatabase(back, new TickMetrics())) {
            hdb.reload();
            final List<StoredTable> t = hdb.acquire("trade", D1, D1);
            assertThat(t).hasSize(1);
            assertThat(t.get(0).rowCount()).isEqualTo(5_000);
            assertThat(t.get(0).syms().count()).isEqualTo(8);
            t.forEach(StoredTable::release);
        }
    }
}
