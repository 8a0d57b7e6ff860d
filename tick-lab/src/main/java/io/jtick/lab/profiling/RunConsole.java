package io.jtick.lab.profiling;

import io.jtick.lab.report.ResultTables;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.RunReport;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A profiling run seen from a command line: progress lines (one each time the entry or phase
 * changes, with the time so far and an estimate of what is left), a run in this process on its
 * own thread that Ctrl-C stops (the run is kept, as stopped), and the exit status of a run.
 */
public final class RunConsole {
    private RunConsole() {
    }

    /**
     * Runs {@code run} on a thread of its own, printing progress to {@code err} about once a
     * second, and returns its last report once it has ended. A JVM shutdown (Ctrl-C) meanwhile
     * stops the run and waits up to 20 s for it to store itself as stopped.
     */
    public static RunReport runHere(final ProfilingRun run, final PrintStream err) {
        final Thread hook = new Thread(() -> {
            if (!run.ended()) {
                err.println("\njtick profile: stopping run " + run.id());
                run.stop();
                try {
                    run.awaitEnd(20, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "profile-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final Thread worker = new Thread(run::run, "profiling-run");
        worker.start();
        String last = "";
        while (!run.ended()) {
            last = progress(err, run.snapshot(), last);
            try {
                run.awaitEnd(1, TimeUnit.SECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                run.stop();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (final IllegalStateException e) {
            // shutting down already: the hook is running
            err.println("jtick profile: shutting down");
        }
        return run.snapshot();
    }

    /**
     * Prints a progress line for {@code report} unless it says what {@code last} said; returns
     * what to pass as {@code last} next time.
     */
    public static String progress(final PrintStream err, final RunReport report, final String last) {
        final RunReport.Progress p = report.progress();
        if (p == null) {
            return last;
        }
        final String entry;
        if (p.currentRow() > 0 && report.spec() != null) {
            entry = "entry " + p.currentRow() + "/" + p.rowsTotal() + " ("
                + ResultTables.label(Experiment.parse(report.experiment()), report.spec().matrix().get(p.currentRow() - 1)) + ") "
                + p.currentPhase();
        } else {
            entry = p.currentPhase() + ", " + p.rowsDone() + "/" + p.rowsTotal() + " entries done";
        }
        if (!entry.equals(last)) {
            err.printf(Locale.ROOT, "[%5.0fs] %s, about %d s left%n", p.elapsedSeconds(), entry, Math.round(p.estimatedRemainingSeconds()));
        }
        return entry;
    }

    /** 0 for a run that is done, 1 for one that failed or was stopped. */
    public static int exitStatus(final String status) {
        return RunReport.DONE.equals(status) ? 0 : 1;
    }
}
