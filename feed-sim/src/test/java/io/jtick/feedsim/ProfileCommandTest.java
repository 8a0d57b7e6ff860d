package io.jtick.feedsim;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProfileCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadTheCommandLine() {
        final ProfileCommand.Options o = ProfileCommand.parse(new String[] {"rows-per-update", "--duration", "5", "--matrix",
            "[{\"r\":1,\"u\":10,\"t\":1}]", "--format", "csv", "--local"});
        assertThat(o.experiment()).isEqualTo("rows-per-update");
        assertThat(o.local()).isTrue();
        assertThat(o.format()).isEqualTo("csv");
        assertThat(o.body()).containsEntry("durationSeconds", 5).containsEntry("matrix", List.of(Map.of("r", 1, "u", 10, "t", 1)));
        assertThatThrownBy(() -> ProfileCommand.parse(new String[] {})).hasMessageContaining("which experiment?");
        assertThatThrownBy(() -> ProfileCommand.parse(new String[] {"custom", "--matrix", "[{"})).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> ProfileCommand.parse(new String[] {"custom", "--format", "pdf"})).hasMessageContaining("unknown format");
        assertThatThrownBy(() -> ProfileCommand.parse(new String[] {"custom", "--speed", "2"})).hasMessageContaining("unknown option");
    }

    private int run(final ByteArrayOutputStream out, final ByteArrayOutputStream err, final String... args) {
        return ProfileCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void shouldRefuseBadParametersBeforeRunningAnything() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(run(out, err, "custom", "--local")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("needs a matrix");
        assertThat(run(out, err, "rows-per-update", "--matrix", "[{\"r\":0}]", "--local")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("[r=0]");
        assertThat(run(out, err, "rows-per-update", "--url", "http://127.0.0.1:1", "--duration", "1")).as("unreachable feed-sim named")
            .isEqualTo(3);
        assertThat(out.size()).isZero();
    }

    @Test
    void shouldRunInThisProcessAndStoreTheRunWhenAskedToRunLocally() throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Path runs = dir.resolve("runs");
        final int status = run(out, err, "subscribers", "--local", "--duration", "1", "--matrix", "[{\"r\":10,\"subscribers\":2}]",
            "--runs-dir", runs.toString(), "--jit-warmup", "0", "--format", "csv", "--paper", dir.resolve("none.csv").toString());
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        final List<String> csv = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(csv).hasSize(2);
        assertThat(csv.get(1)).contains(",subscribers,1,done,");
        try (var files = Files.list(runs)) {
            assertThat(files.toList()).hasSize(1)
                .allMatch(f -> f.getFileName().toString().matches("\\d{8}-\\d{6}-subscribers-\\w{4}\\.json"));
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("entry 1/1", "run done");
    }
}
