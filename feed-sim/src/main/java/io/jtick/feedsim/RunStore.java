package io.jtick.feedsim;

import io.jtick.lab.run.RunReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Profiling runs on disk: {@code <dir>/<id>.json}, one {@link RunReport} each, written whole to a
 * temporary file and renamed over the old one (a crash leaves the previous version, never half a
 * file). {@link #loadAll()} reads them back at start; a run still marked running was cut short by
 * the process dying, so it is stored again as failed with that reason.
 */
final class RunStore {
    private static final Logger LOG = LoggerFactory.getLogger(RunStore.class);
    /** Run ids are file names: letters, digits and dashes. */
    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,99}");

    private final Path dir;
    private final JsonMapper json;

    RunStore(final Path dir) {
        this.dir = dir;
        this.json = mapper();
    }

    /** The JSON mapper runs are stored and sent with (unknown fields ignored so older files still load). */
    static JsonMapper mapper() {
        return JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
    }

    Path dir() {
        return dir;
    }

    /** Writes a run; failures are logged, not thrown (a full disk must not kill the run). */
    void save(final RunReport run) {
        if (!ID.matcher(run.id()).matches()) {
            throw new IllegalArgumentException("bad run id [id=" + run.id() + "]");
        }
        try {
            Files.createDirectories(dir);
            final Path tmp = dir.resolve(run.id() + ".json.tmp");
            Files.writeString(tmp, json.writeValueAsString(run));
            try {
                Files.move(tmp, dir.resolve(run.id() + ".json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (final AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve(run.id() + ".json"), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (final IOException | JacksonException e) {
            LOG.error("cannot store profiling run [id={}, dir={}]: {}", run.id(), dir, e.toString());
        }
    }

    /** Every stored run, oldest first; runs left running are stored again as failed. Unreadable files are skipped with a warning. */
    List<RunReport> loadAll() {
        final List<RunReport> runs = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return runs;
        }
        final List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
        } catch (final IOException e) {
            LOG.error("cannot list stored profiling runs [dir={}]: {}", dir, e.toString());
            return runs;
        }
        for (final Path f : files) {
            try {
                RunReport run = json.readValue(f.toFile(), RunReport.class);
                if (run.running()) {
                    run = run.interrupted(Instant.now().toString());
                    save(run);
                    LOG.warn("profiling run was running when the process stopped; stored as failed [id={}]", run.id());
                }
                runs.add(run);
            } catch (final JacksonException | IllegalArgumentException e) {
                LOG.warn("skipping unreadable profiling run file [file={}]: {}", f, e.getMessage());
            }
        }
        runs.sort(Comparator.comparing(RunReport::createdAt, Comparator.nullsFirst(Comparator.naturalOrder())));
        return runs;
    }
}
