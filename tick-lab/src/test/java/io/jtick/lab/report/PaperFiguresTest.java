package io.jtick.lab.report;

import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RowResult;
import io.jtick.core.tp.PublishMode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

public class PaperFiguresTest {
    /** The shared reference file, found like the shared data folder (surefire sets jtick.shared.data). */
    public static Path referenceFile() {
        final String data = System.getProperty("jtick.shared.data", "../shared/data");
        return Path.of(data).resolveSibling("reference").resolve("kx-tick-profiling.csv");
    }

    private static final List<String> SAMPLE = List.of(
        "# a comment",
        "# table,experiment,r,u,t_ms,rps,ex,mode,subs,bytes,tplog,tppub,tpupd,tpflush,tpcpu,rdbrecv,rdbrecv_first,rdbrecv_last,"
            + "rdbupd,rdbcpu",
        "1,rows-per-update,1,10,1,10000,0,zero-latency,1,,14,3,,,31,71,,,4,12",
        "3,row-size,1,,,10000,10,zero-latency,1,213,14,4,,,34,87,,,6,16",
        "4,publish-frequency,1,,100,10000,0,timer-publish,1,,,,13,36,22,,,,258,0.1",
        "5,subscribers,10,1,1,10000,0,zero-latency,3,,,5,,,5,,175,181,,");

    @Test
    void shouldMatchOnTheParametersThePaperGives() {
        final PaperFigures paper = PaperFigures.parse("sample", SAMPLE);
        assertThat(paper.size()).isEqualTo(4);
        final PaperFigures.Match t1 = paper.match(Experiment.ROWS_PER_UPDATE, LabParams.of(1, 10, 1));
        assertThat(t1.figures()).containsEntry("tplog", 14.0).containsEntry("rdbrecv", 71.0).doesNotContainKey("tpupd");
        assertThat(t1.ref()).startsWith("Table 1 (r=1, u=10, t=1, rows/s=10000");
        assertThat(paper.match(Experiment.ROWS_PER_UPDATE, LabParams.of(1, 5, 1))).as("other rate").isNull();
        assertThat(paper.match(Experiment.ROW_SIZE, LabParams.of(1, 10, 1).withEx(10)).figures()).containsEntry("bytes", 213.0);
        final LabParams timer = LabParams.of(1, 10, 1).withMode(PublishMode.TIMER_PUBLISH, 100);
        assertThat(paper.match(Experiment.PUBLISH_FREQUENCY, timer).figures()).containsEntry("tpflush", 36.0);
        assertThat(paper.match(Experiment.PUBLISH_FREQUENCY, timer.withMode(PublishMode.TIMER_PUBLISH, 50))).as("other timer").isNull();
        assertThat(paper.match(Experiment.SUBSCRIBERS, LabParams.of(10, 1, 1).withSubscribers(3)).figures())
            .containsEntry("rdbrecv_first", 175.0).containsEntry("rdbrecv_last", 181.0);
        assertThat(paper.match(Experiment.CUSTOM, LabParams.of(1, 10, 1)).ref()).as("custom looks in every table").startsWith("Table 1");
    }

    @Test
    void shouldPutRatiosNextToOurFigures() {
        final PaperFigures paper = PaperFigures.parse("sample", SAMPLE);
        final PaperFigures.Match m = paper.match(Experiment.ROWS_PER_UPDATE, LabParams.of(1, 10, 1));
        final RowResult row = ResultTablesTest.row(1, LabParams.of(1, 10, 1), 7.0, 35.5);
        assertThat(PaperFigures.ratios(row, m.figures())).containsEntry("tplog", 0.5).containsEntry("rdbrecv", 0.5)
            .containsEntry("tpcpu", 0.5).doesNotContainKey("tpupd");
    }

    @Test
    void shouldSayWhyThereIsNoComparisonWhenTheFileIsMissing() {
        final PaperFigures none = PaperFigures.load(Path.of("no", "such", "file.csv"));
        assertThat(none.available()).isFalse();
        assertThat(none.source()).contains("not found").contains("file.csv");
        assertThat(none.match(Experiment.ROWS_PER_UPDATE, LabParams.of(1, 10, 1))).isNull();
    }

    @Test
    void shouldFindThePublishedFigureForEveryDefaultEntryOfThePapersTables() {
        final Path file = referenceFile();
        Assumptions.assumeTrue(Files.isRegularFile(file), "paper figures not found at " + file + ": comparison part skipped");
        final PaperFigures paper = PaperFigures.load(file);
        assertThat(paper.size()).isEqualTo(34);
        for (final Experiment e : List.of(Experiment.ROWS_PER_UPDATE, Experiment.PUBLISH_FREQUENCY, Experiment.SUBSCRIBERS)) {
            for (final LabParams p : e.defaultMatrix()) {
                assertThat(paper.match(e, p)).as(e.id() + " " + p.asMap()).isNotNull();
            }
        }
        final long rowSize = Experiment.ROW_SIZE.defaultMatrix().stream().filter(p -> paper.match(Experiment.ROW_SIZE, p) != null).count();
        assertThat(rowSize).as("the paper has 9 of our 12 row-size entries").isEqualTo(9);
        assertThat(paper.match(Experiment.ROWS_PER_UPDATE, LabParams.of(1000, 1, 10)).figures()).containsEntry("rdbupd", 378.0);
    }
}
