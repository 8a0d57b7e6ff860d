package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Where each row of a stage of a table goes, for {@link PlainColumnScatter}: the stage's rows
 * counting-sorted by sym rank. Either each row's position in a staging buffer (each rank's run
 * of the stage contiguous: the buffered writer writes each run where it belongs in the file), or
 * each row's row in the partition ({@link #targets}: the direct-I/O writer stores every value
 * straight into the column's whole value region). It depends on the sym column alone, so it is
 * worked out once per stage and shared by all the table's plain columns. Stages are kept up to
 * {@value #KEPT_ROWS} rows' positions (an {@code int} a row, 64 MB; at least {@value #KEPT}
 * stages): a table of up to that many rows works out each of its stages once, where keeping four
 * stages made every column after the first two of a 10M-row table work its stages out again.
 *
 * <p>Threads: the writer threads of a table share one (through its {@link SortOrder}), and the
 * thread that sorted the table works its target stages out ahead of them ({@link #prepareTargets});
 * a stage is worked out once, by the first thread to ask, outside the lock (a thread asking for it
 * meanwhile waits for it; other stages are looked up and worked out in the meantime), and is
 * read-only afterwards.
 */
final class ScatterStages {
    /** Fewest stages kept, whatever their size. */
    static final int KEPT = 4;
    /** Most rows of positions kept (each an {@code int}), past {@link #KEPT} stages. */
    static final int KEPT_ROWS = 1 << 24;

    /**
     * Rows {@code [first, first + rows)} of the table: each row's position (staged, or its row in
     * the partition when {@code targets}), and each rank's first staged position and row count.
     */
    record Stage(int first, int rows, int stageRows, boolean targets, int[] position, int[] start, int[] count) {
    }

    private final TableSegment table;
    private final int[] rankOfId;
    private final SymRanges ranges;
    /** Stages worked out or being worked out, oldest first. */
    private final LinkedHashMap<Key, CompletableFuture<Stage>> kept = new LinkedHashMap<>();
    private long keptRows;
    /** Stage size → each stage's rows of each rank before it (index k: the stage from row k × size), as far as worked out. */
    private final Map<Integer, List<int[]>> before = new HashMap<>();

    ScatterStages(final TableSegment table, final int[] rankOfId, final SymRanges ranges) {
        this.table = table;
        this.rankOfId = rankOfId;
        this.ranges = ranges;
    }

    /** The stage of {@code stageRows} rows that starts at row {@code first}: staged positions. */
    Stage stage(final int first, final int stageRows) {
        return stage(first, stageRows, false);
    }

    /** The stage of {@code stageRows} rows that starts at row {@code first}: each row's row in the partition. */
    Stage targets(final int first, final int stageRows) {
        return stage(first, stageRows, true);
    }

    /**
     * Works out the target stages of {@code stageRows} rows from the first row on, in order, as far as
     * {@value #KEPT_ROWS} rows (the caller's thread, while the writer threads start on the table's
     * columns: each stage is then ready, or being worked out, when a writer asks for it).
     */
    void prepareTargets(final int stageRows) {
        final int n = table.rowCount();
        for (long a = 0; a < n && a < KEPT_ROWS; a += stageRows) {
            stage((int) a, stageRows, true);
        }
    }

    /**
     * The stage, worked out once: the first thread to ask works it out outside the lock, and a thread
     * asking for it meanwhile waits for that one (other stages are looked up and worked out meanwhile).
     */
    private Stage stage(final int first, final int stageRows, final boolean targets) {
        final Key key = new Key(first, Math.min(stageRows, table.rowCount() - first), stageRows, targets);
        final CompletableFuture<Stage> mine = new CompletableFuture<>();
        final CompletableFuture<Stage> known;
        synchronized (this) {
            known = kept.get(key);
            if (known == null) {
                for (final var it = kept.keySet().iterator(); it.hasNext() && kept.size() >= KEPT && keptRows + key.rows() > KEPT_ROWS;) {
                    keptRows -= it.next().rows();
                    it.remove();
                }
                kept.put(key, mine);
                keptRows += key.rows();
            }
        }
        if (known != null) {
            try {
                return known.join();
            } catch (final CompletionException e) {
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw e.getCause() instanceof RuntimeException re ? re : e;
            }
        }
        try {
            final Stage s = build(first, stageRows, targets);
            mine.complete(s);
            return s;
        } catch (final RuntimeException | Error e) {
            synchronized (this) {
                if (kept.remove(key, mine)) {
                    keptRows -= key.rows();
                }
            }
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /** A stage's identity: its first row, its rows, the stage size asked for and its kind. */
    private record Key(int first, int rows, int stageRows, boolean targets) {
    }

    private Stage build(final int first, final int stageRows, final boolean targets) {
        final int ranks = ranges.count();
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
        final int[] prior = targets ? rowsBefore(first, stageRows) : null;
        int at = 0;
        for (int r = 0; r < ranks; r++) {
            start[r] = at;
            next[r] = targets ? ranges.from(r) + prior[r] : at;
            at += count[r];
        }
        for (int i = 0; i < k; i++) {
            position[i] = next[position[i]]++;
        }
        remember(first, stageRows, count);
        return new Stage(first, k, stageRows, targets, position, start, count);
    }

    /** Rows of each rank in rows {@code [0, first)}: from the stages already worked out, or counted when they were not. */
    private int[] rowsBefore(final int first, final int stageRows) {
        final int index = first / stageRows;
        synchronized (before) {
            final List<int[]> known = before.get(stageRows);
            if (first % stageRows == 0 && known != null && index < known.size()) {
                return known.get(index);
            }
        }
        final int[] prior = new int[ranges.count()];
        final int step = Math.max(1, table.chunkRows());
        final ColumnChunk chunk = new ColumnChunk();
        for (int i = 0; i < first; i += step) {
            final int m = Math.min(step, first - i);
            table.read(TableSchema.SYM, i, m, chunk);
            final int[] ids = chunk.ints();
            final int o = chunk.offset();
            for (int j = 0; j < m; j++) {
                prior[rankOfId[ids[o + j]]]++;
            }
        }
        return prior;
    }

    /** Records the rows of each rank before the stage after this one (a rank count per stage, small), when this one's are known. */
    private void remember(final int first, final int stageRows, final int[] count) {
        if (first % stageRows != 0) {
            return;
        }
        synchronized (before) {
            rememberLocked(first, stageRows, count);
        }
    }

    private void rememberLocked(final int first, final int stageRows, final int[] count) {
        final List<int[]> known = before.computeIfAbsent(stageRows, s -> {
            final List<int[]> l = new ArrayList<>();
            l.add(new int[count.length]);
            return l;
        });
        final int index = first / stageRows;
        if (index == known.size() - 1) {
            final int[] prior = known.get(index);
            final int[] after = new int[count.length];
            for (int r = 0; r < count.length; r++) {
                after[r] = prior[r] + count[r];
            }
            known.add(after);
        }
    }
}
