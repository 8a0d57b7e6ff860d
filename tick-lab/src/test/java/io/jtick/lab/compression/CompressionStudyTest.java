package io.jtick.lab.compression;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class CompressionStudyTest {
    @TempDir
    Path dir;

    @Test
    void shouldReportEveryColumnAndEncodingAgainstPlain() throws IOException {
        final LocalDate day = LocalDate.of(2026, 11, 20);
        final PartitionWriter.Written w = new PartitionWriter(dir.resolve("hdb"), EncodingPolicy.PLAIN)
            .write(day, List.of(SyntheticDay.segment("trade", day, 30_000, 50, 1)));
        try (PartitionTable source = PartitionTable.open(w.directory().resolve("trade"))) {
            final CompressionStudy.Result r = new CompressionStudy(1, false)
                .run(source, List.of(ColumnEncoding.parse("lz4"), ColumnEncoding.parse("auto/zstd:3")), dir.resolve("work"));
            assertThat(r.rows()).isEqualTo(30_000);
            assertThat(r.encodings()).containsExactly("none", "lz4", "auto/zstd:3");
            assertThat(r.columns()).hasSize(5 * 3);
            for (final CompressionStudy.ColumnRow c : r.columns()) {
                assertThat(c.rawBytes()).isPositive();
                assertThat(c.storedBytes()).isPositive();
                assertThat(c.writeMillis()).isPositive();
                if ("none".equals(c.encoding())) {
                    assertThat(c.sizePct()).isEqualTo(100.0);
                    assertThat(c.writeRatio()).isEqualTo(1.0);
                }
            }
            final CompressionStudy.ColumnRow price = r.columns().stream()
                .filter(c -> c.column().equals("price") && c.encoding().equals("auto/zstd:3")).findFirst().orElseThrow();
            assertThat(price.sizePct()).isLessThan(50);
            assertThat(r.queries()).hasSize(4 * 3);
            assertThat(r.queries()).allSatisfy(q -> assertThat(q.hotMillis()).isPositive());
            assertThat(r.queries()).allSatisfy(q -> assertThat(q.repeatMillis()).isPositive());
            // the repeats of the queries that read encoded blocks find them in the cache (the last value per sym reads the block index)
            assertThat(r.queries()).filteredOn(q -> !q.encoding().equals("none") && !q.query().equals("last-per-sym"))
                .hasSize(2 * 3).allSatisfy(q -> assertThat(q.repeatHitPct()).as(q.query() + " " + q.encoding()).isEqualTo(100.0));
            assertThat(r.cpuCsv()).startsWith("query,encoding,hot_cpu_ms,hot_cpu_ratio,repeat_ms,repeat_ratio,repeat_cpu_ms,"
                + "repeat_cpu_ratio,repeat_hit_pct\n");
            assertThat(r.coldMeasured()).isFalse();
            final String csv = r.toCsv();
            assertThat(csv).startsWith("column,type,encoding,raw_bytes,stored_bytes,size_pct,write_ms,write_ratio\n");
            assertThat(csv).contains("\nquery,encoding,hot_ms,hot_ratio,cold_ms,cold_ratio\n");
            assertThat(csv.lines().count()).isEqualTo(1 + 15 + 1 + 1 + 12);
            assertThat(r.sizeTable()).contains("price").contains("auto/zstd:3");
        }
    }
}
