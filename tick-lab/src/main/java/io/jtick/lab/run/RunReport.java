package io.jtick.lab.run;

import java.util.List;

/**
 * A profiling run as callers see it (and as it is stored): its spec, status, progress and the
 * rows measured so far. Times are ISO-8601 instants.
 *
 * @param id          run id
 * @param experiment  experiment id
 * @param status      running, done, failed or stopped
 * @param reason      why it failed or stopped, else null
 * @param createdAt   when it was accepted
 * @param endedAt     when it ended, null while running
 * @param spec        what was asked
 * @param progress    where it is
 * @param rows        one result per matrix entry run so far
 * @param environment the machine and the method
 * @param notes       caveats found while running (a background feed stopped, rows not settled...)
 */
public record RunReport(String id, String experiment, String status, String reason, String createdAt, String endedAt, RunSpec spec,
                        Progress progress, List<RowResult> rows, Environment environment, List<String> notes) {
    public static final String RUNNING = "running";
    public static final String DONE = "done";
    public static final String FAILED = "failed";
    public static final String STOPPED = "stopped";

    public RunReport {
        rows = rows == null ? List.of() : List.copyOf(rows);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /**
     * Progress of a run.
     *
     * @param rowsDone                 entries finished
     * @param rowsTotal                entries in the matrix
     * @param currentRow               1-based entry running now, 0 when none
     * @param currentPhase             starting, warm-up, measuring, draining, or idle
     * @param currentSeconds           seconds the current entry has run
     * @param elapsedSeconds           seconds since the run started
     * @param estimatedRemainingSeconds upper bound: entries left × durationSeconds plus set-up time
     */
    public record Progress(int rowsDone, int rowsTotal, int currentRow, String currentPhase, double currentSeconds,
                           double elapsedSeconds, double estimatedRemainingSeconds) {
    }

    /**
     * Where and how it ran.
     *
     * @param cores          processors the JVM sees
     * @param java           java.version and vm name
     * @param os             os.name os.arch
     * @param transport      Netty transport (epoll or nio)
     * @param subscriberModel how subscribers run
     * @param cpuMethod      how CPU is measured and its overhead
     * @param settleRule     when medians count as settled
     * @param warmup         what runs before anything is measured
     * @param paperFigures   the paper's figures file, or why there is none
     */
    public record Environment(int cores, String java, String os, String transport, String subscriberModel, String cpuMethod,
                              String settleRule, String warmup, String paperFigures) {
    }

    public boolean running() {
        return RUNNING.equals(status);
    }

    /** The stored report of a run that was running when its process died: failed, with the reason. */
    public RunReport interrupted(final String endedAtIso) {
        final Progress p = progress == null ? null : new Progress(progress.rowsDone(), progress.rowsTotal(), 0, "idle", 0,
            progress.elapsedSeconds(), 0);
        return new RunReport(id, experiment, FAILED, "the process running it stopped before the run ended (restart or crash); "
            + rows.size() + " of " + (spec == null ? "?" : String.valueOf(spec.matrix().size())) + " entries were measured",
            createdAt, endedAtIso, spec, p, rows, environment, notes);
    }
}
