package io.jtick.lab.compression;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class CompressionStudyCliTest {
    @TempDir
    Path dir;

    @Test
    void shouldStudyASyntheticDayAndWriteTheCsv() throws IOException {
        final Path csv = dir.resolve("study.csv");
        final int status = CompressionStudyCli.run(new String[] {"compression-study", "--synthetic", "20000", "--syms", "20",
            "--encodings", "lz4,auto/zstd:1", "--runs", "1", "--no-cold", "--csv", csv.toString(),
            "--work", dir.resolve("work").toString()});
        assertThat(status).isZero();
        final List<String> lines = Files.readAllLines(csv);
        assertThat(lines.get(0)).isEqualTo("column,type,encoding,raw_bytes,stored_bytes,size_pct,write_ms,write_ratio");
        assertThat(lines).hasSize(1 + 5 * 3 + 1 + 1 + 4 * 3);
        assertThat(lines).anyMatch(l -> l.startsWith("price,float64,auto/zstd:1,160000,"));
    }

    @Test
    void shouldRefuseUnknownArgumentsAndAMissingSource() throws IOException {
        assertThat(CompressionStudyCli.run(new String[] {"--bogus"})).isEqualTo(2);
        assertThat(CompressionStudyCli.run(new String[] {})).isEqualTo(2);
        assertThat(CompressionStudyCli.run(new String[] {"--root", dir.toString()})).as("--root needs --date").isEqualTo(2);
    }

    @Test
    void shouldRefuseBadValuesWithAnErrorNamingTheOption() throws IOException {
        final java.io.PrintStream err = System.err;
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertThat(CompressionStudyCli.run(new String[] {"--synthetic", "abc"})).isEqualTo(2);
            assertThat(CompressionStudyCli.run(new String[] {"--synthetic", "1000", "--runs", "0"})).isEqualTo(2);
            assertThat(CompressionStudyCli.run(new String[] {"--synthetic", "1000", "--syms"})).isEqualTo(2);
            assertThat(CompressionStudyCli.run(new String[] {"--synthetic", "1000", "--encodings", "lz5"})).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList()).satisfiesExactly(
            l -> assertThat(l).startsWith("compression-study: --synthetic needs a whole number [value=abc]"),
            l -> assertThat(l).startsWith("compression-study: --runs needs at least 1 [value=0]"),
            l -> assertThat(l).startsWith("compression-study: missing value for --syms"),
            l -> assertThat(l).startsWith("compression-study: ").contains("lz5"));
    }
}
