package io.jtick.lab.machinecheck;

import io.jtick.core.testing.LeakCheck;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class ThroughputExperimentTest {
    private static LabParams entry(final int bulk, final int syms) {
        return Experiment.THROUGHPUT.base().withFeed(bulk, 1, 1).with(Map.of("syms", syms));
    }

    @Test
    void shouldInsertTheRowsAndPutKxsFigureBesideOurs() {
        final List<String> phases = new ArrayList<>();
        final RowResult row = new ThroughputExperiment(20_000, 2).run(3, entry(1000, 1000), () -> false, phases::add);
        assertThat(row.status()).isEqualTo(RunReport.DONE);
        assertThat(row.index()).isEqualTo(3);
        assertThat(phases).containsExactly("warm-up", "measuring", "measuring");
        assertThat(row.measures()).hasSize(1);
        final Measure m = row.measures().get(0);
        assertThat(m.name()).isEqualTo("bulk insert 1000");
        assertThat(m.unit()).isEqualTo("M rows/s");
        assertThat(m.higherIsBetter()).isTrue();
        assertThat(m.value()).isPositive();
        assertThat(m.repeats()).isEqualTo(2);
        assertThat(m.operations()).isEqualTo(20_000);
        assertThat(m.kx()).isEqualTo(333.333);
        assertThat(m.kxSource()).contains("kdb+ 4.1");
        assertThat(m.ratio()).isCloseTo(m.value() / 333.333, org.assertj.core.data.Offset.offset(0.001));
        assertThat(m.method()).contains("per CPU second");
    }

    @Test
    void shouldHaveNoKxFigureWhereKxRanNoSuchInsert() {
        final RowResult odd = new ThroughputExperiment(2_000, 1).run(1, entry(7, 1000), () -> false, x -> { });
        assertThat(odd.measures().get(0).kx()).isNull();
        assertThat(odd.measures().get(0).ratio()).isNull();
        final RowResult fewSyms = new ThroughputExperiment(2_000, 1).run(1, entry(100, 10), () -> false, x -> { });
        assertThat(fewSyms.measures().get(0).name()).isEqualTo("bulk insert 100 (10 syms)");
        assertThat(fewSyms.measures().get(0).kx()).as("KX ran 1000 syms").isNull();
    }

    @Test
    void shouldStopBetweenRepeats() {
        final int[] calls = {0};
        final RowResult row = new ThroughputExperiment(2_000, 5).run(1, entry(10, 1000), () -> ++calls[0] > 3, x -> { });
        assertThat(row.status()).isEqualTo(RunReport.STOPPED);
        assertThat(row.measures()).hasSize(1);
        assertThat(row.measures().get(0).repeats()).isEqualTo(2);
    }

    @Test
    void shouldBuildThroughputQsRowsWithTheirSymsInFirstAppearance() {
        final TableSchema schema = ThroughputExperiment.schema();
        assertThat(schema.columns()).extracting(c -> c.name() + ":" + c.type().typeName())
            .containsExactly("time:timestamp", "sym:symbol", "price:float32", "size:int32", "stop:bool", "cond:char", "ex:char");
        final ByteBuf frame = ThroughputExperiment.frame(schema, 500, 1000, 1);
        try {
            final UpdateDecoder d = new UpdateDecoder().wrap(frame, 0);
            assertThat(d.rowCount()).isEqualTo(500);
            final Set<String> dict = new HashSet<>();
            for (int code = 0; code < d.symCount(); code++) {
                assertThat(d.symString(code)).matches("[a-z]{3}");
                dict.add(d.symString(code));
            }
            assertThat(dict).hasSize(d.symCount());
            assertThat(d.symCode(0)).isZero();
            final RealtimeTable t = new RealtimeTable(schema, new SymbolCatalog(), 1000);
            t.append(schema, d);
            final TableSegment seg = t.segment(0);
            for (int r = 0; r < 500; r++) {
                assertThat(Cells.number(seg, 2, r)).isBetween(0.0, 100.0);
                assertThat(Cells.number(seg, 3, r)).isBetween(0.0, 999.0);
                assertThat((String) Cells.cell(seg, 5, r)).matches("[A-Z]");
                assertThat((String) Cells.cell(seg, 6, r)).matches("[A-J]");
            }
        } finally {
            frame.release();
        }
    }
}
