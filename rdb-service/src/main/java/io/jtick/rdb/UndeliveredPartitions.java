package io.jtick.rdb;

import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.HdbWriteDown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Offers the HDB, every {@code tick.rdb.hdb.retry-interval}, the partitions end of day wrote and could
 * not deliver ({@link HdbWriteDown#retryUndelivered}). With {@code transfer=upload} the local root only
 * holds days the HDB has not taken (the uploader deletes a day once the HDB has it), so what a restart
 * finds there (after finishing or undoing an interrupted write) is offered again too.
 */
final class UndeliveredPartitions implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(UndeliveredPartitions.class);

    private final RdbProperties.Hdb hdb;
    private final HdbWriteDown writeDown;
    private volatile ScheduledExecutorService retries;

    UndeliveredPartitions(final RdbProperties.Hdb hdb, final HdbWriteDown writeDown) {
        this.hdb = hdb;
        this.writeDown = writeDown;
    }

    @Override
    public synchronized void start() {
        if (retries != null) {
            return;
        }
        if (hdb.upload()) {
            leftFromBefore();
        }
        final ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "rdb-hdb-delivery");
            t.setDaemon(true);
            return t;
        });
        final long every = hdb.retryInterval().toMillis();
        s.scheduleWithFixedDelay(this::retry, every, every, TimeUnit.MILLISECONDS);
        retries = s;
    }

    private void retry() {
        try {
            if (!writeDown.undelivered().isEmpty()) {
                final int left = writeDown.retryUndelivered();
                if (left == 0) {
                    LOG.info("every written partition is delivered to the HDB");
                }
            }
        } catch (final RuntimeException e) {
            LOG.error("delivering partitions to the HDB failed", e);
        }
    }

    /** Upload: the days a previous run wrote under the local root and did not get rid of. */
    private void leftFromBefore() {
        final Path root = hdb.rootPath();
        try {
            PartitionStore.recover(root);
            for (final Map.Entry<LocalDate, List<Path>> day : PartitionStore.scan(root).entrySet()) {
                if (day.getValue().isEmpty()) {
                    continue;
                }
                final List<PartitionWriter.TableWritten> tables = new ArrayList<>();
                for (final Path t : day.getValue()) {
                    tables.add(new PartitionWriter.TableWritten(t.getFileName().toString(), 0, 0, 0, 0));
                }
                writeDown.undelivered(new PartitionWriter.Written(day.getKey(), root.resolve(day.getKey().toString()), tables, 0));
                LOG.info("a day written before this start is not delivered yet; offering it to the HDB [date={}, tables={}]", day.getKey(),
                    tables.size());
            }
        } catch (final IOException e) {
            LOG.error("cannot look for undelivered days under the local root [root={}]", root, e);
        }
    }

    @Override
    public synchronized void stop() {
        final ScheduledExecutorService s = retries;
        retries = null;
        if (s != null) {
            s.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return retries != null;
    }
}
