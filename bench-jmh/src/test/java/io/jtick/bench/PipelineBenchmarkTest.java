package io.jtick.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the pipeline benchmark's core routine small: checks delivery, never timings. */
class PipelineBenchmarkTest {
    @Test
    void everyRowArrivesExactlyOnceInOrder() throws Exception {
        final PipelineBenchmark.Result res = PipelineBenchmark.run(PipelineBenchmark.Options.parse(
            new String[] {"--rows", "20000", "--r", "10", "--warmup", "2000"}));

        assertThat(res.rowsSent()).isEqualTo(22_000);
        assertThat(res.rdbRows()).isEqualTo(22_000);
        assertThat(res.duplicates()).isZero();
        assertThat(res.rejected()).isZero();
        assertThat(res.feedErrors()).isZero();
        assertThat(res.rowsInOrder()).as("size column is 0..n-1: each row once, in order").isTrue();
        assertThat(PipelineBenchmark.json(res)).startsWith("{\"benchmark\":\"pipeline\"").endsWith("}}");
    }

    @Test
    void pacedRunDeliversEveryRow() throws Exception {
        final PipelineBenchmark.Result res = PipelineBenchmark.run(PipelineBenchmark.Options.parse(
            new String[] {"--rows", "2000", "--r", "1", "--rate", "20000", "--warmup", "0"}));

        assertThat(res.rdbRows()).isEqualTo(2_000);
        assertThat(res.duplicates()).isZero();
        assertThat(res.rowsInOrder()).isTrue();
    }
}
