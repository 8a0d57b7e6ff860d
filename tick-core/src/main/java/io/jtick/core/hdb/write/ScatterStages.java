package io.jtick.core.hdb.write;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;

import java.util.ArrayDeque;

/**
 * Where each row of a stage of a table goes in {@link PlainColumnScatter}'s staging buffer: the
 * stage's rows counting-sorted by sym rank (each row's staged position, and each rank's first
 * position and row count). It depends on the sym column alone, so it is worked out once per stage
 * and shared by all the table's plain columns, where each column used to read the sym column, look
 * up every row's rank, count and advance the ranks' positions again. The last {@value #KEPT} stages
 * are kept (a column asking for an older one works it out again), so the memory is at most
 * {@value #KEPT} stages' positions, an {@code int} a row, whatever the table's size (no more than the
 * writer threads' own rank arrays were).
 *
 * <p>Threads: the writer threads of a table share one (through its {@link SortOrder}); a stage is
 * worked out under the lock, once, and read-only afterwards.
 */
final class ScatterStages {
    /**
     * Stages kept: the writer threads (two to four) move through a table's stages at about the same pace, those of
     * its 8-byte columns first (widest first), in stages half the rows of the narrower columns' ({@link PlainColumnScatter#STAGE_BYTES}).
     */
    static final int KEPT = 4;

    /** Rows {@code [first, first + rows)} of the table: each row's staged position, and each rank's first position and row count. */
    record Stage(int first, int rows, int stageRows, int[] position, int[] start, int[] count) {
    }

    private final TableSegment table;
    private final int[] rankOfId;
    private final int ranks;
    private final ArrayDeque<Stage> kept = new ArrayDeque<>();

    ScatterStages(final TableSegment table, final int[] rankOfId, final int ranks) {
        this.table = table;
        this.rankOfId = rankOfId;
        this.ranks = ranks;
    }

    /** The stage of {@code stageRows} rows that starts at row {@code first}. */
    synchronized Stage stage(final int first, final int stageRows) {
        for (final Stage s : kept) {
            if (s.first() == first && s.stageRows() == stageRows) {
                return s;
            }
        }
        final Stage s = build(first, stageRows);
        if (kept.size() == KEPT) {
            kept.pollFirst();
        }
        kept.addLast(s);
        return s;
    }

    private Stage build(final int first, final int stageRows) {
        final int k = Math.min(stageRows, table.rowCount() - first);
        final int step = Math.max(1, table.chunkRows());
        final ColumnChunk chunk = new ColumnChunk();
        final int[] position = new int[k];
        final int[] count = new int[ranks];
        for (int i = 0; i < k; i += step) {
            final int m = Math.min(step, k - i);
            table.read(TableSchema.SYM, first + i, m, chunk);
            final int[] ids = chunk.ints();
            final int o = chunk.offset();
            for (int j = 0; j < m; j++) {
                final int r = rankOfId[ids[o + j]];
                position[i + j] = r;
                count[r]++;
            }
        }
        final int[] start = new int[ranks];
        final int[] next = new int[ranks];
        int at = 0;
        for (int r = 0; r < ranks; r++) {
            start[r] = at;
            next[r] = at;
            at += count[r];
        }
        for (int i = 0; i < k; i++) {
            position[i] = next[position[i]]++;
        }
        return new Stage(first, k, stageRows, position, start, count);
    }
}
