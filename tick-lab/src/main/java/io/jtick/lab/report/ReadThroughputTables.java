package io.jtick.lab.report;

import io.jtick.lab.run.ReadThroughputFigures;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The replay experiment's results as a text table (one line per entry: total rows/s, per-consumer
 * rows/s, bytes/s, CPU, TimeBase's figure and the ratio beside it) and as CSV.
 */
final class ReadThroughputTables {
    private ReadThroughputTables() {
    }

    static String text(final RunReport run) {
        final StringBuilder sb = new StringBuilder();
        sb.append("jtick profiling run ").append(run.id()).append(" - historical replay read throughput (TimeBase method)\n");
        ResultTables.statusLine(sb, run);
        sb.append('\n');
        if (run.reason() != null) {
            sb.append("reason: ").append(run.reason()).append('\n');
        }
        final RunReport.Environment env = run.environment();
        if (env != null) {
            sb.append("jtick: ").append(env.cores()).append(" cores shared by the replay server and every consumer; Java ")
                .append(env.java()).append("; ").append(env.os()).append("; ").append(env.transport()).append('\n');
        }
        sb.append("TimeBase: one stream on an i7-13850HX (20 cores), 44-byte messages; independent streams from a 64-vCPU server to"
            + " remote consumers over 25 Gbit; 2 vCPU: the same server limited to 2 vCPUs, 4 consumers\n");
        sb.append("rows/s are all consumers together unless \"each\"; cpu in % of one core; ratio = jtick / TimeBase\n\n");
        sb.append(String.format(Locale.ROOT, "%-9s %-12s %5s %7s | %13s %12s %8s %6s %7s %7s | %12s %6s | %12s %6s | %5s %5s%n", "data",
            "encoding", "cons", "streams", "rows/s", "each", "MB/s", "B/row", "srvcpu", "conscpu", "TimeBase", "ratio", "TB 2vCPU",
            "ratio", "order", "once"));
        sb.append("-".repeat(168)).append('\n');
        for (final RowResult r : run.rows()) {
            final ReadThroughputFigures f = r.replay();
            if (f == null) {
                sb.append(String.format(Locale.ROOT, "%-9s %-12s %5d %7d | %s%n", r.params().data(), r.params().encoding(),
                    r.params().subscribers(), r.params().streams(), r.status().toUpperCase(Locale.ROOT) + ": " + r.error()));
                continue;
            }
            sb.append(String.format(Locale.ROOT, "%-9s %-12s %5d %7d | %,13.0f %,12.0f %8.1f %6.1f %7.0f %7.0f"
                + " | %12s %6s | %12s %6s | %5s %5s%n", f.data(), f.encoding(), f.consumers(), f.streams(), f.rowsPerSecond(),
                f.perConsumer(), f.bytesPerSecond() / 1e6, f.bytesPerRow(), f.serverCpu(), f.consumerCpu(), count(f.timebase()),
                ratio(f.ratio()), count(f.timebase2vcpu()), ratio(f.ratio2vcpu()), f.inOrder() ? "ok" : "BAD",
                f.exactlyOnce() ? "ok" : "BAD"));
        }
        sb.append("\ndays: ");
        final List<String> seen = new ArrayList<>();
        for (final RowResult r : run.rows()) {
            final ReadThroughputFigures f = r.replay();
            if (f != null && !seen.contains(f.data() + f.encoding())) {
                seen.add(f.data() + f.encoding());
                sb.append(String.format(Locale.ROOT, "%s/%s %,d rows; ", f.data(), f.encoding(), f.dayRows()));
            }
        }
        sb.append('\n');
        if (env != null) {
            sb.append("\nmethod:\n  consumers: ").append(env.subscriberModel()).append("\n  cpu: ").append(env.cpuMethod())
                .append("\n  timing: ").append(env.settleRule()).append("\n  warm-up: ").append(env.warmup())
                .append("\n  TimeBase figures: ").append(env.paperFigures()).append('\n');
        }
        ResultTables.problemsAndNotes(sb, run);
        return sb.toString();
    }

    static String csv(final RunReport run) {
        final StringBuilder sb = new StringBuilder();
        sb.append("run_id,experiment,entry,status,data,encoding,consumers,streams,day_rows,rows,seconds,rows_per_s,rows_per_s_each,"
            + "bytes_per_s,bytes_per_row,server_cpu,consumer_cpu,in_order,exactly_once,timebase_msg_per_s,ratio,timebase_2vcpu_msg_per_s,"
            + "ratio_2vcpu,timebase_ref,cores,error\n");
        final int cores = run.environment() == null ? 0 : run.environment().cores();
        for (final RowResult r : run.rows()) {
            final ReadThroughputFigures f = r.replay();
            final List<Object> v = new ArrayList<>(List.of(run.id(), run.experiment(), r.index(), r.status(), r.params().data(),
                r.params().encoding(), r.params().subscribers(), r.params().streams()));
            if (f == null) {
                v.addAll(java.util.Collections.nCopies(16, ""));
            } else {
                v.addAll(List.of(f.dayRows(), f.rows(), f.seconds(), f.rowsPerSecond(), f.perConsumer(), f.bytesPerSecond(),
                    f.bytesPerRow(), f.serverCpu(), f.consumerCpu(), f.inOrder(), f.exactlyOnce()));
                v.add(f.timebase() == null ? "" : f.timebase());
                v.add(f.ratio() == null ? "" : f.ratio());
                v.add(f.timebase2vcpu() == null ? "" : f.timebase2vcpu());
                v.add(f.ratio2vcpu() == null ? "" : f.ratio2vcpu());
                v.add(f.timebaseRef() == null ? "" : f.timebaseRef());
            }
            v.add(cores);
            v.add(r.error() == null ? "" : r.error());
            ResultTables.csvLine(sb, v);
        }
        return sb.toString();
    }

    private static String count(final Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String ratio(final Double v) {
        return v == null ? "" : String.format(Locale.ROOT, "%.2f", v);
    }
}
