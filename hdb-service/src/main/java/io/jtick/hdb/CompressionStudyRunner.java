package io.jtick.hdb;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.lab.compression.CompressionStudy;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.format.StoredTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the {@link CompressionStudy} on one loaded table, one study at a time: the table is retained
 * for the run (a tier swap or reload meanwhile does not close it), the copies go to a fresh
 * directory under the work directory and are deleted afterwards.
 */
final class CompressionStudyRunner {
    private static final Logger LOG = LoggerFactory.getLogger(CompressionStudyRunner.class);

    private final HdbLifecycle store;
    private final HdbProperties.Study defaults;
    private final Path workBase;
    private final AtomicBoolean running = new AtomicBoolean();

    CompressionStudyRunner(final HdbLifecycle store, final HdbProperties properties) {
        this.store = store;
        this.defaults = properties.study();
        this.workBase = properties.study().workDir() != null ? properties.study().workDir()
            : properties.root().toAbsolutePath().normalize().getParent();
    }

    /**
     * Runs the study.
     *
     * @throws IllegalArgumentException bad encoding or runs, or no such loaded partition table (400)
     * @throws ApiException             409 when a study is already running
     */
    CompressionStudy.Result run(final LocalDate date, final String table, final List<String> encodings, final Integer runs,
                                final Boolean cold) throws IOException {
        if (date == null || table == null || table.isBlank()) {
            throw new IllegalArgumentException("date and table are required [date=" + date + ", table=" + table + "]");
        }
        final List<ColumnEncoding> parsed = new ArrayList<>();
        for (final String e : encodings) {
            try {
                parsed.add(ColumnEncoding.parse(e));
            } catch (final IllegalArgumentException bad) {
                throw new IllegalArgumentException("bad encoding [encoding=" + e + "]: " + bad.getMessage(), bad);
            }
        }
        final CompressionStudy study = new CompressionStudy(runs == null ? defaults.runs() : runs, cold == null ? defaults.cold() : cold);
        final List<StoredTable> found = store.hdb().acquire(table, date, date);
        if (found.isEmpty()) {
            throw new IllegalArgumentException("unknown partition [date=" + date + ", table=" + table + "]");
        }
        try {
            if (!(found.get(0) instanceof PartitionTable source)) {
                throw new IllegalArgumentException("the compression study reads jtick's column files, this partition is "
                    + found.get(0).format() + " [date=" + date + ", table=" + table + "]");
            }
            if (!running.compareAndSet(false, true)) {
                throw new ApiException(HttpStatus.CONFLICT, "a compression study is already running; try again when it is done");
            }
            try {
                final Path work = createWorkDir();
                try {
                    LOG.info("compression study [date={}, table={}, rows={}, encodings={}, work={}]", date, table, source.rowCount(),
                        encodings, work);
                    return study.run(source, parsed, work);
                } finally {
                    PartitionStore.deleteRecursively(work);
                }
            } finally {
                running.set(false);
            }
        } finally {
            found.forEach(StoredTable::release);
        }
    }

    boolean running() {
        return running.get();
    }

    private Path createWorkDir() throws IOException {
        if (workBase != null && Files.isDirectory(workBase) && Files.isWritable(workBase)) {
            return Files.createTempDirectory(workBase, "jtick-study-");
        }
        return Files.createTempDirectory("jtick-study-");
    }
}
