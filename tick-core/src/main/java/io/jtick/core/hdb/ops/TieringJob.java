package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormat;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.read.ColdStore;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Moves partitions between tiers and applies retention: every loaded table not stored as its tier
 * says (its table's retention step for its age, else the tier policy's tier) is rewritten into a
 * temporary copy and swapped in ({@link PartitionWriter#rewrite}, or another format's writer), then
 * the HDB switches to the new files ({@link HistoricalDatabase#replace}); a table past its
 * retention is renamed aside, dropped from the HDB and deleted. Queries keep running on the old
 * files, which close when their last reader is done. A dry run only lists what would move or go.
 * Every move and delete is appended to the audit log ({@code <root>/tiering-audit.jsonl}). One run at a time.
 */
public final class TieringJob {
    private static final Logger LOG = LoggerFactory.getLogger(TieringJob.class);

    /** The audit log's file name under the root: one JSON line per move or delete. */
    public static final String AUDIT_FILE = "tiering-audit.jsonl";

    private final HistoricalDatabase hdb;
    private final RetentionPolicy retention;
    private final int blockBytes;

    /** One table moved (in a dry run: would move; {@code bytesAfter} -1). */
    public record Moved(LocalDate date, String table, String tier, long bytesBefore, long bytesAfter, long millis) {
    }

    /** One table deleted by retention (in a dry run: would be). */
    public record Deleted(LocalDate date, String table, String rule, long bytes) {
    }

    /** What a run did, or with {@code dryRun} would do. */
    public record Report(LocalDate today, boolean dryRun, int tablesChecked, List<Moved> moved, List<Deleted> deleted, List<String> failed,
                         long millis) {
    }

    public TieringJob(final HistoricalDatabase hdb, final TierPolicy policy, final int blockBytes) {
        this(hdb, RetentionPolicy.none(policy), blockBytes);
    }

    public TieringJob(final HistoricalDatabase hdb, final RetentionPolicy retention, final int blockBytes) {
        this.hdb = hdb;
        this.retention = retention;
        this.blockBytes = blockBytes;
    }

    /** Moves and deletes what is out of tier or past retention as of {@code today}. */
    public Report run(final LocalDate today) {
        return run(today, false);
    }

    /** As {@link #run(LocalDate)}; with {@code dryRun} nothing changes and the report lists what would. */
    public synchronized Report run(final LocalDate today, final boolean dryRun) {
        final long start = System.nanoTime();
        final List<Moved> moved = new ArrayList<>();
        final List<Deleted> deleted = new ArrayList<>();
        final List<String> failed = new ArrayList<>();
        final List<StoredTable> tables = hdb.acquireAll();
        int checked = 0;
        try {
            for (final StoredTable t : tables) {
                checked++;
                if (retention.expired(t.name(), t.date(), today)) {
                    final String rule = retention.rules().get(t.name()).text();
                    if (dryRun) {
                        deleted.add(new Deleted(t.date(), t.name(), rule, t.bytesOnDisk()));
                        continue;
                    }
                    try {
                        delete(t);
                        deleted.add(new Deleted(t.date(), t.name(), rule, t.bytesOnDisk()));
                        audit("delete", t, rule, t.bytesOnDisk(), 0, null);
                        LOG.info("retention deleted partition [date={}, table={}, rule={}]", t.date(), t.name(), rule);
                    } catch (final IOException | RuntimeException e) {
                        failed.add(t.date() + "/" + t.name() + ": " + e.getMessage());
                        audit("delete", t, rule, t.bytesOnDisk(), -1, e.getMessage());
                        LOG.error("retention delete failed, partition left as it was [date={}, table={}]", t.date(), t.name(), e);
                    }
                    continue;
                }
                final TierPolicy.Tier tier = retention.tierFor(t.name(), t.date(), today);
                if (inTier(t, tier)) {
                    continue;
                }
                if (dryRun) {
                    moved.add(new Moved(t.date(), t.name(), tier.name(), t.bytesOnDisk(), -1, 0));
                    continue;
                }
                final long t0 = System.nanoTime();
                try {
                    final long before = t.bytesOnDisk();
                    if (tier.objectStore()) {
                        moveToObjectStore(t, tier);
                    } else {
                        move(t, tier);
                        hdb.replace(t.date(), t.name());
                    }
                    final long after = hdb.acquire(t.name(), t.date(), t.date()).stream().mapToLong(p -> {
                        final long b = p.bytesOnDisk();
                        p.release();
                        return b;
                    }).sum();
                    moved.add(new Moved(t.date(), t.name(), tier.name(), before, after, (System.nanoTime() - t0) / 1_000_000));
                    audit("move", t, tier.name() + " (" + tier.storedFormat() + ")", before, after, null);
                    LOG.info("re-encoded partition [date={}, table={}, tier={}, bytes={} -> {}]", t.date(), t.name(),
                        tier.name(), before, after);
                } catch (final IOException | RuntimeException e) {
                    failed.add(t.date() + "/" + t.name() + ": " + e.getMessage());
                    audit("move", t, tier.name(), t.bytesOnDisk(), -1, e.getMessage());
                    LOG.error("tiering failed, partition left as it was [date={}, table={}]", t.date(), t.name(), e);
                }
            }
        } finally {
            tables.forEach(StoredTable::release);
        }
        return new Report(today, dryRun, checked, List.copyOf(moved), List.copyOf(deleted), List.copyOf(failed),
            (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Deletes one table: renamed aside as a swap would ({@code .old-<table>-<id>}, so a crash before the
     * delete ends restores it and the next run deletes it again), dropped from the HDB, then deleted;
     * queries holding it keep reading the unlinked files. The date directory goes with its last table.
     */
    private void delete(final StoredTable t) throws IOException {
        if (t.format().startsWith(ColdStore.FORMAT_PREFIX)) {
            coldStore(t).delete(t.date(), t.name());
            hdb.remove(t.date(), t.name());
            return;
        }
        deleteLocal(t, true);
    }

    /** Renames a local table aside, drops it from the HDB when asked (not when its cold copy replaced it), and deletes it. */
    private void deleteLocal(final StoredTable t, final boolean dropFromHdb) throws IOException {
        final Path live = t.directory();
        final Path dateDir = live.getParent();
        final Path old = dateDir.resolve(".old-" + t.name() + "-" + UUID.randomUUID().toString().substring(0, 8));
        Files.move(live, old, StandardCopyOption.ATOMIC_MOVE);
        PartitionStore.fsync(dateDir);
        if (dropFromHdb) {
            hdb.remove(t.date(), t.name());
        }
        PartitionStore.deleteRecursively(old);
        try (Stream<Path> left = Files.list(dateDir)) {
            if (left.findAny().isEmpty()) {
                Files.deleteIfExists(dateDir);
                PartitionStore.fsync(hdb.root());
            }
        }
    }

    /** One JSON line in {@code <root>/tiering-audit.jsonl}: when, what, which table, sizes, and the error when it failed. */
    private void audit(final String action, final StoredTable t, final String to, final long before, final long after,
                       final String error) {
        final String line = "{\"time\":\"" + Instant.now() + "\",\"action\":\"" + action + "\",\"date\":\"" + t.date()
            + "\",\"table\":\"" + json(t.name()) + "\",\"from\":\"" + json(t.format()) + "\",\"to\":\"" + json(to)
            + "\",\"bytesBefore\":" + before + ",\"bytesAfter\":" + after + ",\"error\":" + (error == null ? "null" : "\"" + json(error)
            + "\"") + "}\n";
        try {
            Files.writeString(hdb.root().resolve(AUDIT_FILE), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        } catch (final IOException e) {
            LOG.error("could not append to the tiering audit log [file={}]: {}", hdb.root().resolve(AUDIT_FILE), line.trim(), e);
        }
    }

    private static String json(final String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ");
    }

    /**
     * Moves a local table to the object store: uploaded (as Parquet), verified and published by its
     * manifest ({@link ColdStore#publish}); then the HDB reads the published copy and the local files
     * are deleted. A crash before the manifest leaves the local copy the only one; a crash after it
     * leaves both, the local one read (it wins at reload), and the next run only checks the upload
     * and deletes the local files.
     */
    private void moveToObjectStore(final StoredTable t, final TierPolicy.Tier tier) throws IOException {
        final ColdStore store = coldStore(t);
        if (t.format().startsWith(ColdStore.FORMAT_PREFIX)) {
            throw new IOException("a cold partition is re-encoded only by deleting it and tiering a local copy [date=" + t.date()
                + ", table=" + t.name() + ", have=" + t.format() + ", want=" + tier.storedFormat() + "]");
        }
        final ColdStore.ColdPartition published = store.publish(t, tier.uploadFormat());
        hdb.replaceCold(published);
        deleteLocal(t, false);
    }

    private ColdStore coldStore(final StoredTable t) throws IOException {
        final ColdStore store = hdb.coldStore();
        if (store == null) {
            throw new IOException("the tier is in the object store but none is configured (tick.hdb.object-store.*) [date=" + t.date()
                + ", table=" + t.name() + "]");
        }
        return store;
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
