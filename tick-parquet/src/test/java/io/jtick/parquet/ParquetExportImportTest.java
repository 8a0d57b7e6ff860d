package io.jtick.parquet;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Days exported for DuckDB read as jtick answers them; a day DuckDB wrote imports with the same answers; a misfit is named by column. */
@ExtendWith(LeakCheck.class)
class ParquetExportImportTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);
    private static final LocalDate D2 = LocalDate.of(2026, 9, 2);
    private static final String BY_SYM = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"},"
        + "\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}";

    @TempDir
    Path root;
    @TempDir
    Path out;
    @TempDir
    Path imported;

    private final List<HistoricalDatabase> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(HistoricalDatabase::close);
    }

    private HistoricalDatabase open(final Path r) throws IOException {
        final HistoricalDatabase hdb = new HistoricalDatabase(r, new TickMetrics());
        opened.add(hdb);
        hdb.reload();
        return hdb;
    }

    private static Map<String, double[]> jtick(final HistoricalDatabase hdb) {
        final Map<String, double[]> m = new TreeMap<>();
        for (final List<Object> r : ParquetFormatTest.answer(new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1), hdb, BY_SYM)) {
            m.put((String) r.get(0), new double[] {((Number) r.get(1)).doubleValue(), ((Number) r.get(2)).doubleValue(),
                ((Number) r.get(3)).doubleValue()});
        }
        return m;
    }

    private static Map<String, double[]> duckdb(final Statement s, final String from) throws Exception {
        final Map<String, double[]> m = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT sym, count(*), sum(size), sum(price * size) / sum(size) FROM " + from
            + " GROUP BY sym ORDER BY sym")) {
            while (rs.next()) {
                m.put(rs.getString(1), new double[] {rs.getLong(2), rs.getLong(3), rs.getDouble(4)});
            }
        }
        return m;
    }

    private static void assertSame(final Map<String, double[]> a, final Map<String, double[]> b) {
        assertThat(a.keySet()).isEqualTo(b.keySet()).isNotEmpty();
        for (final String sym : a.keySet()) {
            assertThat(a.get(sym)[0]).as(sym).isEqualTo(b.get(sym)[0]);
            assertThat(a.get(sym)[1]).as(sym).isEqualTo(b.get(sym)[1]);
            assertThat(a.get(sym)[2]).as(sym).isCloseTo(b.get(sym)[2], within(1e-9 * b.get(sym)[2]));
        }
    }

    @Test
    void shouldExportHiveFoldersDuckDbReadsAndImportWhatDuckDbWrites() throws Exception {
        final PartitionWriter w = new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE);
        w.write(D1, List.of(SyntheticDay.segment("trade", D1, 20_000, 12, 1)));
        w.write(D2, List.of(SyntheticDay.segment("trade", D2, 20_000, 12, 2)));
        final HistoricalDatabase hdb = open(root);
        final List<ParquetExport.FileWritten> files = ParquetExport.export(hdb, D1, D2, List.of(), "zstd", out);
        assertThat(files).extracting(ParquetExport.FileWritten::path).containsExactly(
            out.resolve("date=2026-09-01/trade.parquet").toString(), out.resolve("date=2026-09-02/trade.parquet").toString());
        final Map<String, double[]> ours = jtick(hdb);

        final Path duckDay = imported.resolve("from-duckdb");
        Files.createDirectories(duckDay);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(DISTINCT date) FROM read_parquet('" + out + "/*/*.parquet', "
                + "hive_partitioning = true)")) {
                rs.next();
                assertThat(rs.getInt(1)).as("the date column from the folders").isEqualTo(2);
            }
            assertSame(duckdb(s, "read_parquet('" + out + "/*/*.parquet')"), ours);
            // DuckDB writes a file of its own (its own row groups, order and encodings) ...
            s.execute("COPY (SELECT time, sym, price, size, cond FROM read_parquet('" + out + "/*/*.parquet') ORDER BY random()) TO '"
                + duckDay.resolve("trade.parquet") + "' (FORMAT parquet, ROW_GROUP_SIZE 5000)");
            // ... and one that does not fit: size as a double, cond missing, a column the table lacks
            s.execute("COPY (SELECT time, sym, price, size::DOUBLE AS size, 1 AS venue FROM read_parquet('" + out
                + "/*/*.parquet')) TO '" + imported.resolve("misfit.parquet") + "' (FORMAT parquet)");
        }
        // ... which imports into the same days with the same answers
        final Path fresh = imported.resolve("hdb");
        final HdbImport.Settings settings = HdbImport.Settings.defaults(fresh);
        final List<HdbImport.DateWritten> dates = ParquetImport.load(ParquetImport.files(duckDay, "trade"), TableSchema.trade(0),
            ZoneId.of("America/New_York"), settings);
        assertThat(dates).extracting(HdbImport.DateWritten::date).containsExactly(D1, D2);
        assertThat(dates).extracting(HdbImport.DateWritten::rows).containsExactly(20_000L, 20_000L);
        assertSame(jtick(open(fresh)), ours);

        assertThatThrownBy(() -> ParquetImport.load(List.of(imported.resolve("misfit.parquet")), TableSchema.trade(0), ZoneId.of("UTC"),
            settings)).isInstanceOf(ParquetImport.SchemaMismatchException.class)
            .hasMessageContaining("column size: DOUBLE where jtick has int64")
            .hasMessageContaining("column cond: missing")
            .hasMessageContaining("column venue: not in table trade");
    }
}
