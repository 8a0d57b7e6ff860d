package io.jtick.hdb;

import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.ops.PartitionArchive;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.objectstore.S3ColdStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.PeriodicTrigger;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Owns the {@link HistoricalDatabase}: loads every partition under the root before the web server
 * opens (a corrupt partition stops start-up with its message), schedules the {@link TieringJob},
 * and closes the files at stop. Reloads and tiering runs take one lock, so this process never
 * rewrites a partition while it rescans the root (queries take no lock).
 */
final class HdbLifecycle implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(HdbLifecycle.class);

    /** Before the web server (which starts in phase {@code Integer.MAX_VALUE - 1}): no request sees an unloaded HDB. */
    static final int PHASE = 0;

    private final HdbProperties properties;
    private final HistoricalDatabase hdb;
    private final TierPolicy policy;
    private final TieringJob tiering;
    private final S3ColdStore coldStore;
    private final CronExpression cron;
    private final ReentrantLock storeLock = new ReentrantLock();
    private final AtomicLong reloads;
    private final AtomicLong tieringRuns;
    private final AtomicLong tieringMoved;
    private final AtomicLong tieringFailures;
    private final AtomicLong retentionDeleted;
    private final AtomicLong imports;
    private volatile ThreadPoolTaskScheduler scheduler;
    private volatile boolean running;
    private volatile Reloaded lastReload;
    private volatile TieringJob.Report lastTiering;
    private volatile boolean tieringInProgress;

    /** A reload and when it finished. */
    record Reloaded(Instant at, HistoricalDatabase.ReloadReport report) {
    }

    HdbLifecycle(final HdbProperties properties, final TickMetrics metrics) {
        this.properties = properties;
        this.policy = properties.tierPolicy();
        this.cron = properties.tieringCron();
        final Duration delay = properties.tiering().fixedDelay();
        if (properties.tiering().enabled() && delay != null && (delay.isNegative() || delay.isZero())) {
            throw new IllegalArgumentException("fixed delay must be positive [key=tick.hdb.tiering.fixed-delay, value=" + delay + "]");
        }
        this.hdb = new HistoricalDatabase(properties.root(), metrics);
        this.coldStore = properties.objectStore().enabled() ? new S3ColdStore(properties.objectStore().settings(properties.root()),
            metrics) : null;
        hdb.coldStore(coldStore);
        hdb.preloadDays(properties.preloadDays());
        if (properties.decodedBlockCache() != null) {
            DecodedBlockCache.shared().capacityBytes(properties.decodedBlockCache().toBytes());
        }
        this.tiering = new TieringJob(hdb, properties.retentionPolicy(policy), properties.blockBytesInt());
        this.reloads = metrics.counter("tick.hdb.reloads");
        this.tieringRuns = metrics.counter("tick.hdb.tiering.runs");
        this.tieringMoved = metrics.counter("tick.hdb.tiering.moved");
        this.tieringFailures = metrics.counter("tick.hdb.tiering.failures");
        this.retentionDeleted = metrics.counter("tick.hdb.retention.deleted");
        this.imports = metrics.counter("tick.hdb.imports");
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        try {
            final HistoricalDatabase.ReloadReport r = reload();
            LOG.info("HDB loaded [root={}, partitions={}, tables={}]", properties.root().toAbsolutePath(), r.partitions(), r.tables());
        } catch (final IOException | RuntimeException e) {
            hdb.close();
            closeColdStore();
            throw new IllegalStateException("cannot load the HDB [root=" + properties.root().toAbsolutePath() + "]: " + e.getMessage(), e);
        }
        if (properties.tiering().enabled()) {
            final ThreadPoolTaskScheduler s = new ThreadPoolTaskScheduler();
            s.setThreadNamePrefix("jtick-tiering-");
            s.setPoolSize(1);
            s.setAwaitTerminationSeconds(30);
            s.initialize();
            if (cron != null) {
                s.schedule(this::scheduledRun, new CronTrigger(properties.tiering().cron(), properties.tiering().zone()));
            } else {
                final PeriodicTrigger trigger = new PeriodicTrigger(properties.tiering().fixedDelay());
                trigger.setInitialDelay(properties.tiering().fixedDelay());
                s.schedule(this::scheduledRun, trigger);
            }
            scheduler = s;
            LOG.info("tiering scheduled [{}]", schedule());
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        final ThreadPoolTaskScheduler s = scheduler;
        scheduler = null;
        if (s != null) {
            s.shutdown();
        }
        storeLock.lock();
        try {
            hdb.close();
            closeColdStore();
        } finally {
            storeLock.unlock();
        }
        running = false;
    }

    private void closeColdStore() {
        if (coldStore != null) {
            coldStore.close();
        }
    }

    /** The cold tier's store, or null when {@code tick.hdb.object-store.enabled} is false. */
    S3ColdStore coldStore() {
        return coldStore;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    HistoricalDatabase hdb() {
        return hdb;
    }

    /** The lock reloads, tiering runs and partition installs take (a bulk import holds it while it writes each date). */
    ReentrantLock storeLock() {
        return storeLock;
    }

    TierPolicy policy() {
        return policy;
    }

    /** Today in the tiering zone (partition ages count from it). */
    LocalDate today() {
        return LocalDate.now(properties.tiering().zone());
    }

    /** Rescans the root: opens new and changed tables, drops removed ones (waits for a tiering run). */
    HistoricalDatabase.ReloadReport reload() throws IOException {
        storeLock.lock();
        try {
            final HistoricalDatabase.ReloadReport r = hdb.reload();
            reloads.incrementAndGet();
            lastReload = new Reloaded(Instant.now(), r);
            if (!r.opened().isEmpty() || !r.dropped().isEmpty()) {
                LOG.info("HDB reloaded [opened={}, dropped={}]", r.opened(), r.dropped());
            }
            return r;
        } finally {
            storeLock.unlock();
        }
    }

    /**
     * Receives a partition archive ({@link PartitionArchive}) for {@code date}, verifies it, then
     * swaps its tables in and reloads, under the store lock (the receiving does not hold it).
     */
    PartitionArchive.Installed importPartition(final InputStream in, final LocalDate date) throws IOException {
        try (PartitionArchive.Received received = PartitionArchive.receive(in, properties.root(), date,
            properties.importMaxBytes().toBytes())) {
            storeLock.lock();
            try {
                final PartitionArchive.Installed installed = received.install();
                imports.incrementAndGet();
                LOG.info("partition imported [date={}, tables={}, rows={}, bytes={}]", date, installed.tables(), installed.rows(),
                    installed.bytes());
                reload();
                return installed;
            } finally {
                storeLock.unlock();
            }
        }
    }

    /** Re-encodes every table that is out of its tier as of {@code today}, deletes what is past retention. */
    TieringJob.Report runTiering(final LocalDate today) {
        return runTiering(today, false);
    }

    /** As {@link #runTiering(LocalDate)}; a dry run changes nothing and lists what would move or go. */
    TieringJob.Report runTiering(final LocalDate today, final boolean dryRun) {
        storeLock.lock();
        tieringInProgress = true;
        try {
            final TieringJob.Report r = tiering.run(today, dryRun);
            if (dryRun) {
                return r;
            }
            tieringRuns.incrementAndGet();
            tieringMoved.addAndGet(r.moved().size());
            tieringFailures.addAndGet(r.failed().size());
            retentionDeleted.addAndGet(r.deleted().size());
            lastTiering = r;
            LOG.info("tiering run [today={}, checked={}, moved={}, deleted={}, failed={}, millis={}]", today, r.tablesChecked(),
                r.moved().size(), r.deleted().size(), r.failed().size(), r.millis());
            return r;
        } finally {
            tieringInProgress = false;
            storeLock.unlock();
        }
    }

    private void scheduledRun() {
        try {
            runTiering(today());
        } catch (final RuntimeException e) {
            LOG.error("scheduled tiering run failed", e);
        }
    }

    /** The schedule as text, e.g. {@code cron "0 15 0 * * *" UTC}, or {@code off}. */
    String schedule() {
        final HdbProperties.Tiering t = properties.tiering();
        if (!t.enabled()) {
            return "off";
        }
        return t.fixedDelay() != null ? "fixed delay " + t.fixedDelay() : "cron \"" + t.cron() + "\" " + t.zone();
    }

    ZoneId zone() {
        return properties.tiering().zone();
    }

    Reloaded lastReload() {
        return lastReload;
    }

    TieringJob.Report lastTiering() {
        return lastTiering;
    }

    boolean tieringInProgress() {
        return tieringInProgress;
    }
}
