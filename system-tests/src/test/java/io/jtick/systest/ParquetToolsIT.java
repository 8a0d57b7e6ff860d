package io.jtick.systest;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.parquet.ParquetExport;
import io.jtick.parquet.ParquetImport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * jtick's Parquet export read by the data tools users have (pyarrow, polars, DuckDB from PyPI, in
 * the test virtualenv): each gets jtick's count, sum(size) and VWAP per sym; a day written by
 * pyarrow and one written by DuckDB import with the same answers. Skipped, saying why, when the
 * virtualenv cannot be made (no python3-venv, no package index). Tagged slow, as KdbClientsIT: the first
 * run installs the virtualenv from PyPI.
 */
@Tag("slow")
class ParquetToolsIT {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);
    private static final LocalDate D2 = LocalDate.of(2026, 9, 2);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path root;
    @TempDir
    Path work;

    private static Map<String, double[]> jtick(final Path root) throws Exception {
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            final PartitionSource source = new PartitionSource(hdb);
            final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
            final ResultTable t = new ResultTable();
            engine.execute(engine.prepare("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"},"
                + "\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}", source), source, t);
            final Map<String, double[]> m = new TreeMap<>();
            for (final List<Object> r : t.rows()) {
                m.put((String) r.get(0), new double[] {((Number) r.get(1)).doubleValue(), ((Number) r.get(2)).doubleValue(),
                    ((Number) r.get(3)).doubleValue()});
            }
            return m;
        }
    }

    private static List<String> python(final String... args) throws Exception {
        final Path python = KdbClientsVenv.python();
        final List<String> cmd = new ArrayList<>(List.of(python.toString(), KdbClientsVenv.SCRIPTS.resolve("parquet_tools.py").toString()));
        cmd.addAll(List.of(args));
        final Path log = Files.createTempFile("parquet-tools", ".log");
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("parquet_tools.py " + String.join(" ", args) + " did not end in 300 s");
            }
            final List<String> out = Files.readAllLines(log);
            assertThat(p.exitValue()).as(String.join("\n", out)).isZero();
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void assertSame(final String who, final Map<String, double[]> got, final Map<String, double[]> want) {
        assertThat(got.keySet()).as(who).isEqualTo(want.keySet());
        for (final String sym : want.keySet()) {
            assertThat(got.get(sym)[0]).as(who + " count " + sym).isEqualTo(want.get(sym)[0]);
            assertThat(got.get(sym)[1]).as(who + " sum(size) " + sym).isEqualTo(want.get(sym)[1]);
            assertThat(got.get(sym)[2]).as(who + " vwap " + sym).isCloseTo(want.get(sym)[2], within(1e-9 * want.get(sym)[2]));
        }
    }

    @Test
    void shouldBeReadByPyarrowPolarsAndDuckDbAndImportWhatTheyWrite() throws Exception {
        final PartitionWriter w = new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE);
        w.write(D1, List.of(SyntheticDay.segment("trade", D1, 30_000, 25, 1)));
        w.write(D2, List.of(SyntheticDay.segment("trade", D2, 30_000, 25, 2)));
        final Map<String, double[]> ours = jtick(root);
        final Path out = work.resolve("export");
        assertThat(ParquetExport.export(root, D1, D2, List.of("trade"), "zstd", out)).hasSize(2);

        final Map<String, Map<String, double[]>> byReader = new TreeMap<>();
        for (final String line : python("read", out.toString())) {
            if (!line.startsWith("{")) {
                continue;
            }
            final JsonNode n = JSON.readTree(line);
            byReader.computeIfAbsent(n.get("reader").asString(), k -> new TreeMap<>()).put(n.get("sym").asString(),
                new double[] {n.get("n").asDouble(), n.get("size").asDouble(), n.get("vwap").asDouble()});
        }
        assertThat(byReader.keySet()).containsExactly("duckdb", "polars", "pyarrow");
        byReader.forEach((reader, answers) -> assertSame(reader, answers, ours));

        final Path byPyarrow = Files.createDirectories(work.resolve("pyarrow"));
        final Path byDuckDb = Files.createDirectories(work.resolve("duckdb"));
        python("write", out.toString(), byPyarrow.toString(), byDuckDb.toString());
        for (final Path written : List.of(byPyarrow, byDuckDb)) {
            final Path fresh = work.resolve("hdb-" + written.getFileName());
            final List<HdbImport.DateWritten> dates = ParquetImport.load(ParquetImport.files(written, "trade"), TableSchema.trade(0),
                ZoneId.of("America/New_York"), HdbImport.Settings.defaults(fresh));
            assertThat(dates).extracting(HdbImport.DateWritten::date).containsExactly(D1, D2);
            assertSame("imported from " + written.getFileName(), jtick(fresh), ours);
        }
    }
}
