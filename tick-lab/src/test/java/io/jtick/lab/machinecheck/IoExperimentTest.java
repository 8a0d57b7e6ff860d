package io.jtick.lab.machinecheck;

import io.jtick.core.testing.LeakCheck;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class IoExperimentTest {
    @TempDir
    Path dir;

    @Test
    void shouldMeasureIoQsListOnJticksStorageAndTickerplantBesideKxs() throws Exception {
        final List<String> phases = new ArrayList<>();
        final RowResult row = new IoExperiment(dir, 4, 2, 20).run(1, LabParams.base(), () -> false, phases::add);
        assertThat(row.status()).as(String.valueOf(row.error())).isEqualTo(RunReport.DONE);
        assertThat(phases).containsExactly("local file", "local file ops", "local comm");
        final List<String> names = row.measures().stream().map(Measure::name).toList();
        final boolean cold = names.contains("read");
        final List<String> expected = new ArrayList<>(List.of("hclose hopen", "read", "read cached", "write", "set",
            "append (2 3) to handle", "hcount", "read1", "value", "hclose hopen 127.0.0.1", "sync (key rand 100)", "sync (string 23)",
            "async (string 23) + collect"));
        if (!cold) {
            // where the page cache cannot be dropped (no dd or fincore, or the kernel keeps the pages) the row says so
            assertThat(row.error()).contains("cold read not measured");
            expected.remove("read");
        }
        assertThat(names).containsExactlyElementsOf(expected);
        for (final Measure m : row.measures()) {
            assertThat(m.value()).as(m.name()).isPositive();
            assertThat(m.kx()).as(m.name()).isPositive();
            assertThat(m.ratio()).as(m.name()).isPositive();
            assertThat(m.kxSource()).contains("io.q");
            assertThat(m.unit()).isIn("ms", "MB/s");
            assertThat(m.higherIsBetter()).isEqualTo("MB/s".equals(m.unit()));
            assertThat(m.repeats()).isEqualTo(2);
        }
        assertThat(row.measures()).filteredOn(m -> m.name().equals("read cached")).first()
            .satisfies(m -> assertThat(m.operations()).isGreaterThan(4L * 1024 * 1024));
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("files and the journal are deleted").isEmpty();
        }
    }
}
