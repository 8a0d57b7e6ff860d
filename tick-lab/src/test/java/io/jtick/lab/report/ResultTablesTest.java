package io.jtick.lab.report;

import io.jtick.lab.machinecheck.ThroughputExperiment;
import io.jtick.lab.run.CpuUsage;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.Figure;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import io.jtick.lab.run.Window;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ResultTablesTest {
    /** A done row with every zero-latency figure; tplog and rdbrecv medians as given, tp cpu 15.5 %. */
    static RowResult row(final int index, final LabParams p, final double tplog, final double rdbrecv) {
        final Map<String, Figure> f = new LinkedHashMap<>();
        f.put("tplog", new Figure(1000, tplog, tplog * 3, tplog * 5, tplog * 20));
        f.put("tppub", new Figure(1000, 1.5, 4, 8, 30));
        f.put("tpupd", new Figure(1000, 12, 30, 50, 300));
        f.put("tpflush", new Figure(900, 3, 9, 20, 80));
        f.put("rdbrecv", new Figure(1000, rdbrecv, 90, 200, 900));
        f.put("rdbupd", new Figure(1000, 1.2, 3, 6, 40));
        f.put("rdbrecv_last", new Figure(1000, rdbrecv, 90, 200, 900));
        f.put("rdbupd_last", new Figure(1000, 1.2, 3, 6, 40));
        return new RowResult(index, p, RunReport.DONE, null, true, 3.0, 1, 4.0, 40_000, 4000, 40_000, 40_000, 40_000, true,
            p.targetRowsPerSecond(), 9_990, 120, 1, 0, f, new CpuUsage(15.5, 6, 6, 6, 4, 0.1, 0.5, 0.2, 30, 12.5, null), null, null, null,
            List.of(new Window(1, 1000, 1000, 12.0, rdbrecv)), null);
    }

    static RunReport report(final List<RowResult> rows) {
        final RunSpec spec = new RunSpec("rows-per-update", 5, rows.stream().map(RowResult::params).toList());
        return new RunReport("r-test", "rows-per-update", RunReport.DONE, null, "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", spec,
            new RunReport.Progress(rows.size(), rows.size(), 0, "idle", 0, 60, 0), rows,
            new RunReport.Environment(2, "17", "Linux amd64", "epoll", "in-process", "thread cpu", "3 windows", "jit", "sample"),
            List.of("a note"));
    }

    private static RunReport sample() {
        final PaperFigures paper = PaperFigures.parse("sample", List.of(
            "1,rows-per-update,1,10,1,10000,0,zero-latency,1,,14,3,,,31,71,,,4,12"));
        final RowResult a = row(1, LabParams.of(1, 10, 1), 7, 35.5);
        final PaperFigures.Match m = paper.match(Experiment.ROWS_PER_UPDATE, a.params());
        return report(List.of(a.withPaper(m.figures(), m.ref(), PaperFigures.ratios(a, m.figures())),
            row(2, LabParams.of(10, 3, 1), 9, 50)));
    }

    @Test
    void shouldLayTheTextTableOutLikeThePaper() {
        final String text = ResultTables.text(sample());
        assertThat(text).contains("rows per update (KX white paper Table 1)", "status done; 2 of 2 entries", "settled 2 of 2");
        final List<String> lines = text.lines().toList();
        final String header = lines.stream().filter(l -> l.contains("tplog") && l.contains("rows/s")).findFirst().orElseThrow();
        assertThat(header).containsSubsequence("r", "u", "t", "rows/s", "|", "tplog", "tppub", "tpupd", "tpflush", "rdbrecv", "rdbupd",
            "tpcpu", "rdbcpu", "|", "got/s", "settled", "complete");
        final int first = lines.indexOf(lines.stream().filter(l -> l.trim().startsWith("1 ")).findFirst().orElseThrow());
        assertThat(lines.get(first)).contains("10,000", "7.00", "1.50", "35.5", "15.5", "yes");
        assertThat(lines.get(first + 1).trim()).startsWith("paper").contains("14", "71", "31");
        assertThat(lines.get(first + 2)).contains("ratio", "0.50");
        assertThat(text).contains("entry 1: Table 1 (r=1, u=10, t=1", "tails", "tplog 21.0/35.0/140 n=1000", "notes:", "a note");
        assertThat(text).as("the wait for a CPU per wake-up, or - where unknown").contains("tp 15.5 (timing 0.50, wait 12.5 us)",
            "rdb first 6.0 (timing 0.20, wait -)");
    }

    @Test
    void shouldWriteOneCsvLinePerEntryWithEveryColumn() {
        final String csv = ResultTables.csv(sample());
        final List<String> lines = csv.lines().toList();
        assertThat(lines).hasSize(3);
        final int columns = ResultTables.csvHeader().size();
        assertThat(lines.get(0).split(",", -1)).hasSize(columns);
        assertThat(lines.get(1).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1)).hasSize(columns);
        assertThat(lines.get(2).split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1)).hasSize(columns);
        assertThat(lines.get(1)).startsWith("r-test,rows-per-update,1,done,trade,1,10,1,0,zero-latency,100,1,true,100,10000.0")
            .contains(",14.0,", ",0.5,", ",30.0,12.5,,");
    }

    @Test
    void shouldDrawTheMainSeriesAsWellFormedSvg() throws Exception {
        final String svg = ResultChart.svg(sample());
        final Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getNodeName()).isEqualTo("svg");
        assertThat(doc.getElementsByTagName("polyline").getLength()).as("6 jtick lines + paper lines").isGreaterThanOrEqualTo(6);
        assertThat(svg).contains("tplog", "rdbrecv", "1/10/1", "stroke-dasharray");
        final String empty = ResultChart.svg(report(List.of()));
        assertThat(empty).contains("no entries measured yet");
    }

    private static RunReport scripts(final String experiment, final List<RowResult> rows) {
        final RunSpec spec = new RunSpec(experiment, 5, rows.stream().map(RowResult::params).toList());
        return new RunReport("r-" + experiment, experiment, RunReport.DONE, null, "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", spec,
            new RunReport.Progress(rows.size(), rows.size(), 0, "idle", 0, 20, 0), rows,
            new RunReport.Environment(2, "17", "Linux amd64", "epoll", "script", "not measured", "median", "one untimed", "KX"),
            List.of());
    }

    private static RowResult insert(final int index, final int bulk, final double mrows) {
        return RowResult.measured(index, Experiment.THROUGHPUT.base().withFeed(bulk, 1, 1), RunReport.DONE, null, 1.0, List.of(
            new Measure("throughput", ThroughputExperiment.name(bulk), "M rows/s", mrows, 5, 1_000_000, true, null, null, null, "m")
                .withKx(ThroughputExperiment.kx(ThroughputExperiment.KX_REFERENCE, bulk), "KX")));
    }

    @Test
    void shouldPrintThroughputLikeThroughputQWithKxsMachinesBeside() throws Exception {
        final RunReport run = scripts("throughput", List.of(insert(1, 1, 1.5), insert(2, 100, 200.0)));
        final String text = ResultTables.text(run);
        assertThat(text).contains("1.5 million inserts per second (single insert)", "200 million inserts per second (bulk insert 100)",
            "KX Opteron", "KX Turion64");
        assertThat(text.lines().filter(l -> l.startsWith("bulk insert 100 ")).findFirst().orElseThrow())
            .contains("200", "166.67", "1.20", "20.408", "16.129");
        final String csv = ResultTables.csv(run);
        assertThat(csv.lines().count()).isEqualTo(3);
        assertThat(csv.lines().findFirst().orElseThrow()).isEqualTo(String.join(",", MeasureTables.csvHeader()));
        assertThat(csv).contains(",bulk insert 100,M rows/s,200.0,5,1000000,true,166.667,KX,1.2,");
        final String svg = ResultChart.svg(run);
        final Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getElementsByTagName("rect").getLength()).as("background and one bar per measure").isEqualTo(3);
        assertThat(svg).contains("1.20x", "0.568x");
    }

    @Test
    void shouldPrintIoLikeIoQBySectionWithKxAndRatios() {
        final RowResult row = RowResult.measured(1, LabParams.base(), RunReport.DONE, null, 5.0, List.of(
            new Measure("local file", "read", "MB/s", 540, 3, 1 << 28, true, null, null, null, "cold").withKx(270.0, "KX"),
            new Measure("local comm", "sync (string 23)", "ms", 0.11, 3, 2000, false, null, null, null, "rt").withKx(0.05514, "KX")));
        final String text = ResultTables.text(scripts("io", List.of(row)));
        assertThat(text).contains("local file\n", "local comm\n", "read", "540", "270", "2.00", "sync (string 23)", "0.11", "0.05514",
            "2.00", "0.501");
        assertThat(ResultTables.csv(scripts("io", List.of(row))).lines().count()).isEqualTo(3);
    }
}
