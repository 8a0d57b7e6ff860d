package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormat;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves partitions between tiers: every loaded table whose columns are not encoded as its tier
 * says is re-encoded into a temporary copy and swapped in ({@link PartitionWriter#rewrite}), then
 * the HDB switches to the new files ({@link HistoricalDatabase#replace}). Queries keep running on
 * the old files, which close when their last reader is done. One run at a time.
 */
public final class TieringJob {
    private static final Logger LOG = LoggerFactory.getLogger(TieringJob.class);

    private final HistoricalDatabase hdb;
    private final TierPolicy policy;
    private final int blockBytes;

    /** One table moved. */
    public record Moved(LocalDate date, String table, String tier, long bytesBefore, long bytesAfter, long millis) {
    }

    /** What a run did. */
    public record Report(LocalDate today, int tablesChecked, List<Moved> moved, List<String> failed, long millis) {
    }

    public TieringJob(final HistoricalDatabase hdb, final TierPolicy policy, final int blockBytes) {
        this.hdb = hdb;
        this.policy = policy;
        this.blockBytes = blockBytes;
    }

    /** Re-encodes what is out of tier as of {@code today}. */
    public synchronized Report run(final LocalDate today) {
        final long start = System.nanoTime();
        final List<Moved> moved = new ArrayList<>();
        final List<String> failed = new ArrayList<>();
        final List<StoredTable> tables = hdb.acquireAll();
        int checked = 0;
        try {
            for (final StoredTable t : tables) {
                checked++;
                final TierPolicy.Tier tier = policy.tierFor(t.date(), today);
                if (inTier(t, tier)) {
                    continue;
                }
                final long t0 = System.nanoTime();
                try {
                    final long before = t.bytesOnDisk();
                    move(t, tier);
                    hdb.replace(t.date(), t.name());
                    final long after = hdb.acquire(t.name(), t.date(), t.date()).stream().mapToLong(p -> {
                        final long b = p.bytesOnDisk();
                        p.release();
                        return b;
                    }).sum();
                    moved.add(new Moved(t.date(), t.name(), tier.name(), before, after, (System.nanoTime() - t0) / 1_000_000));
                    LOG.info("re-encoded partition [date={}, table={}, tier={}, bytes={} -> {}]", t.date(), t.name(),
                        tier.name(), before, after);
                } catch (final IOException | RuntimeException e) {
                    failed.add(t.date() + "/" + t.name() + ": " + e.getMessage());
                    LOG.error("tiering failed, partition left as it was [date={}, table={}]", t.date(), t.name(), e);
                }
            }
        } finally {
            tables.forEach(StoredTable::release);
        }
        return new Report(today, checked, List.copyOf(moved), List.copyOf(failed), (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Rewrites one table as its tier asks, into a staging copy swapped in table by table: jtick's
     * column files by the partition writer, another format ({@code parquet/zstd}) by that format.
     */
    private void move(final StoredTable t, final TierPolicy.Tier tier) throws IOException {
        if (tier.format() == null) {
            new PartitionWriter(hdb.root(), tier.policy(), blockBytes, 2, PartitionWriter.WriteHook.NONE).rewrite(t);
            return;
        }
        final TableFormat format = TableFormats.byName(TierPolicy.formatName(tier.format()));
        try (PartitionStore.Staging stage = PartitionStore.stage(hdb.root(), t.date())) {
            format.write(t, TierPolicy.formatCompression(tier.format()), stage.table(t.name()));
            stage.force(List.of(t.name()));
            stage.swapIn(t.name());
        }
    }

    /**
     * True when a table is stored as its tier asks: in the tier's format, and for jtick's column
     * files every column's encoding as the tier says (auto: any transform with the right codec and level).
     */
    static boolean inTier(final StoredTable stored, final TierPolicy.Tier tier) {
        if (!stored.format().equals(tier.storedFormat())) {
            return false;
        }
        if (!(stored instanceof PartitionTable t)) {
            return true;
        }
        for (int c = 0; c < t.schema().columnCount(); c++) {
            final ColumnEncoding want = tier.encoding(t.name(), t.schema().column(c)).forType(t.schema().type(c));
            final ColumnEncoding have = t.column(c).encoding();
            if (want.isAuto()) {
                if (have.codec() != want.codec() || have.level() != want.level()) {
                    return false;
                }
            } else if (!want.equals(have)) {
                return false;
            }
        }
        return true;
    }
}
