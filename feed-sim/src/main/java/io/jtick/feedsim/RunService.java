package io.jtick.feedsim;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.core.feed.FeedSupervisor;
import io.jtick.core.warmup.HeapReturn;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.profiling.ProfilingRun;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import io.jtick.core.time.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The profiling control plane behind {@code /api/runs}: validates a run, refuses a second one while
 * one runs (409), runs it on its own thread, keeps every run's report (loaded from the
 * {@link RunStore} at start, stored again as it progresses) and stops a run on request. If this
 * process's own feed is running when a run starts it is stopped first (it would share the CPU
 * with the lab), and the run's notes say so. When a run ends, one full collection hands the heap its
 * labs took back to the OS ({@link HeapReturn}).
 */
class RunService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunService.class);

    private final FeedProperties properties;
    private final FeedSupervisor feeds;
    private final RunStore store;
    private final Map<String, RunReport> runs = new LinkedHashMap<>();
    private ProfilingRun current;

    RunService(final FeedProperties properties, final FeedSupervisor feeds, final RunStore store) {
        this.properties = properties;
        this.feeds = feeds;
        this.store = store;
        for (final RunReport r : store.loadAll()) {
            runs.put(r.id(), r);
        }
        if (!runs.isEmpty()) {
            LOG.info("profiling runs loaded [count={}, dir={}]", runs.size(), store.dir());
        }
    }

    /** Starts a run; 400 when the body is wrong (IllegalArgumentException), 409 while another runs. */
    synchronized Map<String, Object> start(final Map<String, Object> body) {
        final RunSpec spec = RunSpec.parse(body);
        if (current != null && current.active()) {
            throw new ApiException(HttpStatus.CONFLICT, "a profiling run is already running; wait for it or DELETE /api/runs/"
                + current.id() + " [id=" + current.id() + "]");
        }
        final String id = ProfilingRun.newId(spec);
        final ProfilingRun run = new ProfilingRun(id, spec, settings(), this::changed);
        final FeedSupervisor.Status feed = feeds.status();
        if (feed.running()) {
            feeds.stop();
            run.note("feed-sim's own feed was running " + feed.parameters() + " and was stopped for this run (it would share"
                + " the CPU with the lab); start it again with POST /api/feed/start");
        }
        current = run;
        runs.put(id, run.snapshot());
        final Thread t = new Thread(() -> {
            try {
                run.run();
            } finally {
                // the run's tickerplants, subscribers and tables are garbage now; nothing else of this process is
                // latency-sensitive (its own feed was stopped for the run), so their heap goes back at once
                HeapReturn.afterJob("profiling run " + id, LOG);
            }
        }, "profiling-run");
        t.setDaemon(true);
        t.start();
        LOG.info("profiling run started [id={}, experiment={}, entries={}, durationSeconds={}]", id, spec.experiment(),
            spec.matrix().size(), spec.durationSeconds());
        final Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", id);
        answer.put("status", RunReport.RUNNING);
        answer.put("entries", spec.matrix().size());
        answer.put("href", "/api/runs/" + id);
        return answer;
    }

    private ProfilingRun.Settings settings() {
        final String lab = properties.labDir();
        final Path work = lab == null || lab.isBlank() ? Path.of(System.getProperty("java.io.tmpdir"), "jtick-lab") : Path.of(lab);
        return new ProfilingRun.Settings(work, PaperFigures.load(properties.paperFigures()), properties.seed(), NanoClock.SYSTEM,
            properties.jitWarmup().toMillis(), properties.dataDir());
    }

    private void changed(final RunReport report) {
        synchronized (this) {
            runs.put(report.id(), report);
        }
        store.save(report);
    }

    /** Summaries of every run, newest first. */
    synchronized List<Map<String, Object>> list() {
        final List<Map<String, Object>> out = new ArrayList<>();
        for (final RunReport stored : runs.values()) {
            final RunReport r = live(stored.id());
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", r.id());
            m.put("experiment", r.experiment());
            m.put("status", r.status());
            m.put("createdAt", r.createdAt());
            m.put("endedAt", r.endedAt());
            m.put("entries", r.spec() == null ? 0 : r.spec().matrix().size());
            m.put("entriesDone", r.rows().size());
            m.put("durationSeconds", r.spec() == null ? 0 : r.spec().durationSeconds());
            m.put("reason", r.reason());
            m.put("href", "/api/runs/" + r.id());
            out.add(0, m);
        }
        return out;
    }

    /** A run's report (live while it runs); 404 when unknown. */
    synchronized RunReport get(final String id) {
        if (!RunStore.ID.matcher(id).matches() || !runs.containsKey(id)) {
            throw new ApiException(HttpStatus.NOT_FOUND, "no such profiling run [id=" + id + "]");
        }
        return live(id);
    }

    private RunReport live(final String id) {
        final ProfilingRun c = current;
        return c != null && c.id().equals(id) ? c.snapshot() : runs.get(id);
    }

    /** Stops a run and waits (up to 20 s) for it to end; a run that has ended is returned as it is. */
    RunReport stop(final String id) {
        final ProfilingRun run;
        synchronized (this) {
            get(id);
            run = current != null && current.id().equals(id) ? current : null;
        }
        if (run != null && !run.ended()) {
            run.stop();
            try {
                if (!run.awaitEnd(20, TimeUnit.SECONDS)) {
                    LOG.warn("profiling run did not stop within 20 s [id={}]", id);
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return get(id);
    }

    /** Application shutdown: a running run is stopped (and stored as stopped, not left running). */
    @Override
    public void close() {
        final ProfilingRun run;
        synchronized (this) {
            run = current;
        }
        if (run != null && !run.ended()) {
            stop(run.id());
        }
    }
}
