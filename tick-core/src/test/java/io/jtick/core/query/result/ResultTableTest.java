package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ResultTableTest {
    /** A table of (time with repeats and nulls, price with repeats, sym), rows in a random order. */
    private static ResultTable table(final int rows, final long seed) {
        final SplittableRandom r = new SplittableRandom(seed);
        final ResultTable t = new ResultTable();
        t.begin(List.of("time", "price", "sym"), List.of(ValueType.TIMESTAMP, ValueType.FLOAT64, ValueType.SYMBOL));
        for (int i = 0; i < rows; i++) {
            if (r.nextInt(20) == 0) {
                t.nullValue();
            } else {
                t.value(1_000_000L * r.nextInt(rows / 3 + 1));
            }
            t.value(r.nextInt(7) / 2.0);
            t.symbol("S" + r.nextInt(5));
            t.endRow();
        }
        t.end(null);
        return t;
    }

    @Test
    void shouldGiveTheFirstRowsOfTheFullOrderForASmallLimit() {
        for (final long seed : new long[] {1, 2, 3}) {
            final ResultTable t = table(997, seed);
            for (final int[] cols : new int[][] {{0}, {1, 0}, {2, 1}}) {
                for (final boolean d : new boolean[] {false, true}) {
                    final boolean[] desc = new boolean[cols.length];
                    Arrays.fill(desc, d);
                    desc[desc.length - 1] = !d;
                    final int[] full = t.order(cols, desc);
                    for (final int k : new int[] {1, 2, 5, 64, 200}) {
                        assertThat(t.order(cols, desc, k)).as("cols %s desc %s limit %d", Arrays.toString(cols), Arrays.toString(desc), k)
                            .containsExactly(Arrays.copyOf(full, k));
                    }
                    assertThat(t.order(cols, desc, 900)).containsExactly(full);
                }
            }
        }
    }
}
