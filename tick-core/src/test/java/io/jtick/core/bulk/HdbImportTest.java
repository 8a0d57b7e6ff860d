package io.jtick.core.bulk;

import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Bulk import into HDB partitions by each row's own date: the real TAQ day against sums from the file, bad lines, re-import. */
@ExtendWith(LeakCheck.class)
class HdbImportTest {
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final String HEADER = "DT,EX,SYMBOL,COND,SIZE,PRICE,CORR\n";

    @TempDir
    Path root;

    @TempDir
    Path files;

    private HdbImport.Report importFile(final Path file, final boolean strict) {
        return new HdbImport("t", new HdbImport.Settings(root, TierPolicy.defaults(), LocalDate.of(2026, 1, 1),
            PartitionWriter.DEFAULT_BLOCK_BYTES, 50_000_000L, 100, null), new HdbImport.Request("taq", "trade", file, List.of(), List.of(),
            NEW_YORK, null, strict)).run();
    }

    /** count, sum(size), vwap per New York date of a TAQ trades file, computed with String.split, not the feed's parser. */
    private static Map<LocalDate, double[]> fromFile(final Path file) throws IOException {
        final Map<LocalDate, double[]> out = new TreeMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file)),
            StandardCharsets.US_ASCII))) {
            final List<String> header = List.of(in.readLine().split(","));
            final int dt = header.indexOf("DT");
            final int size = header.indexOf("SIZE");
            final int price = header.indexOf("PRICE");
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                final String[] f = line.split(",", -1);
                final LocalDate d = Instant.parse(f[dt]).atZone(NEW_YORK).toLocalDate();
                final double[] acc = out.computeIfAbsent(d, k -> new double[3]);
                final double s = Double.parseDouble(f[size]);
                acc[0]++;
                acc[1] += s;
                acc[2] += s * Double.parseDouble(f[price]);
            }
        }
        return out;
    }

    @Test
    void shouldImportTheTaqSampleByDateWithCountSizeAndVwapOfTheFile() throws IOException {
        final String data = System.getProperty("jtick.shared.data");
        assumeTrue(data != null, "system property jtick.shared.data is not set: skipping the real-data import test");
        final Path file = Path.of(data, "highfrequency-taq-sample-2018-01", "trades.csv.gz");
        assumeTrue(Files.isRegularFile(file), "TAQ sample absent, skipping the real-data import test [file=" + file + "]");
        final HdbImport.Report r = importFile(file, false);
        assertThat(r.state()).isEqualTo("done");
        assertThat(r.badLines()).isZero();
        final Map<LocalDate, double[]> expected = fromFile(file);
        assertThat(expected.keySet()).containsExactly(LocalDate.of(2018, 1, 2), LocalDate.of(2018, 1, 3));
        assertThat(r.dates()).extracting(HdbImport.DateWritten::date).containsExactlyElementsOf(expected.keySet());
        assertThat(r.dates()).extracting(HdbImport.DateWritten::encoding).allMatch(e -> e.startsWith("tier cold"));
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            final ResultTable t = new QueryEngine().query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},"
                + "\"size\":{\"sum\":\"size\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"date\"}", new PartitionSource(hdb));
            assertThat(t.rows()).hasSize(2);
            for (final List<Object> row : t.rows()) {
                final Object d = row.get(0);
                final LocalDate date = d instanceof Number n ? LocalDate.ofEpochDay(n.longValue()) : LocalDate.parse((String) d);
                final double[] e = expected.get(date);
                assertThat(((Number) row.get(1)).longValue()).isEqualTo((long) e[0]);
                assertThat(((Number) row.get(2)).longValue()).isEqualTo((long) e[1]);
                assertThat(((Number) row.get(3)).doubleValue()).isCloseTo(e[2] / e[1], within(1e-9));
            }
            assertThat(expected.get(LocalDate.of(2018, 1, 2))[0]).isEqualTo(39_470);
        }
    }

    @Test
    void shouldReportBadLinesWithFileAndLineAndImportTheRest() throws IOException {
        final Path file = files.resolve("trades.csv");
        Files.writeString(file, HEADER
            + "2026-03-02T15:00:00.000Z,P,AAA,,100,10.5,0\n"
            + "2026-03-02T15:00:01.000Z,P,AAA,,ten,10.5,0\n"
            + "2026-03-02T15:00:02.000Z,P,BBB\n"
            + "2026-03-02T15:00:03.000Z,P,BBB,,200,20.25,0\n"
            + "2026-03-03T04:30:00.000Z,P,AAA,,300,11.0,0\n");
        final HdbImport.Report r = importFile(file, false);
        assertThat(r.state()).isEqualTo("done");
        assertThat(r.badLines()).isEqualTo(2);
        assertThat(r.badLineSamples().get(0)).contains("file=" + file).contains("line=3").contains("value=ten");
        assertThat(r.badLineSamples().get(1)).contains("file=" + file).contains("line=4").contains("fields");
        assertThat(r.rowsWritten()).isEqualTo(3);
        assertThat(r.dates()).extracting(HdbImport.DateWritten::date).as("04:30Z on the 3rd is the 2nd in New York")
            .containsExactly(LocalDate.of(2026, 3, 2));
        assertThat(r.dates().get(0).rows()).isEqualTo(3);

        final HdbImport.Report strict = new HdbImport("s", new HdbImport.Settings(files.resolve("strict-root"), TierPolicy.defaults(),
            LocalDate.of(2026, 3, 10), PartitionWriter.DEFAULT_BLOCK_BYTES, 50_000_000L, 100, null),
            new HdbImport.Request("taq", "trade", file, List.of(), List.of(), NEW_YORK, "plain", true)).run();
        assertThat(strict.state()).isEqualTo("failed");
        assertThat(strict.error()).contains("line=3");
        assertThat(strict.dates()).isEmpty();
        assertThat(files.resolve("strict-root").resolve("2026-03-02")).doesNotExist();
    }

    @Test
    void shouldReplaceADateOnReImport() throws IOException {
        final Path first = files.resolve("first.csv");
        Files.writeString(first, HEADER + "2026-03-02T15:00:00.000Z,P,AAA,,100,10.5,0\n2026-03-02T15:00:01.000Z,P,AAA,,100,10.5,0\n");
        final Path second = files.resolve("second.csv");
        Files.writeString(second, HEADER + "2026-03-02T16:00:00.000Z,P,CCC,,7,1.5,0\n");
        assertThat(importFile(first, false).rowsWritten()).isEqualTo(2);
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            assertThat(hdb.partitions().get(0).tables().get(0).rows()).isEqualTo(2);
            assertThat(importFile(second, false).rowsWritten()).isEqualTo(1);
            hdb.reload();
            assertThat(hdb.partitions()).hasSize(1);
            assertThat(hdb.partitions().get(0).tables().get(0).rows()).as("the date holds the second file's rows only").isEqualTo(1);
        }
        try (var dirs = Files.list(root)) {
            assertThat(dirs.map(p -> p.getFileName().toString())).containsExactly("2026-03-02");
        }
    }
}
