package io.jtick.lab.report;

import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RowResult;
import io.jtick.core.tp.PublishMode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KX white paper's published figures ({@code kx-tick-profiling.csv}: tables 1, 3, 4, 5) and the
 * rule that puts one next to each of our rows. A paper row matches an entry when r, ex, the publish
 * mode, the subscriber count and the rate (r × u × 1000 / t) agree, and u and t too where the paper
 * gives them (its {@code t_ms} is the tickerplant timer in the timer modes). An experiment looks in
 * its own table first, then in the others.
 */
public final class PaperFigures {
    /** Figure columns of the file, in its order (µs, % for cpu, bytes). */
    public static final List<String> FIGURES = List.of("bytes", "tplog", "tppub", "tpupd", "tpflush", "tpcpu", "rdbrecv",
        "rdbrecv_first", "rdbrecv_last", "rdbupd", "rdbcpu");
    private static final List<String> DEFAULT_HEADER = List.of("table", "experiment", "r", "u", "t_ms", "rps", "ex", "mode", "subs",
        "bytes", "tplog", "tppub", "tpupd", "tpflush", "tpcpu", "rdbrecv", "rdbrecv_first", "rdbrecv_last", "rdbupd", "rdbcpu");

    private final String source;
    private final List<Map<String, String>> rows;

    /** The paper row that matched and its figures. */
    public record Match(String ref, Map<String, Double> figures) {
    }

    private PaperFigures(final String source, final List<Map<String, String>> rows) {
        this.source = source;
        this.rows = rows;
    }

    /** Reads the file; a missing file gives an empty set whose {@link #source()} says so. */
    public static PaperFigures load(final Path csv) {
        if (csv == null || !Files.isRegularFile(csv)) {
            return none("paper figures not found [file=" + csv + "]: no comparison column");
        }
        try {
            return parse(csv.toAbsolutePath().normalize().toString(), Files.readAllLines(csv, StandardCharsets.UTF_8));
        } catch (final IOException | RuntimeException e) {
            return none("paper figures unreadable [file=" + csv + "]: " + e.getMessage());
        }
    }

    public static PaperFigures none(final String why) {
        return new PaperFigures(why, List.of());
    }

    /** Parses CSV lines; {@code #} lines are comments, one of which may be the header ({@code # table,experiment,...}). */
    public static PaperFigures parse(final String source, final List<String> lines) {
        List<String> header = DEFAULT_HEADER;
        final List<Map<String, String>> rows = new ArrayList<>();
        for (final String raw : lines) {
            final String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                final String h = line.substring(1).strip();
                if (h.startsWith("table,")) {
                    header = Arrays.asList(h.split(",", -1));
                }
                continue;
            }
            if (line.startsWith("table,")) {
                header = Arrays.asList(line.split(",", -1));
                continue;
            }
            final String[] cells = line.split(",", -1);
            final Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.size() && i < cells.length; i++) {
                row.put(header.get(i).strip(), cells[i].strip());
            }
            rows.add(row);
        }
        return new PaperFigures(source, Collections.unmodifiableList(rows));
    }

    /** The file read, or why there are no figures. */
    public String source() {
        return source;
    }

    public boolean available() {
        return !rows.isEmpty();
    }

    public int size() {
        return rows.size();
    }

    /** The paper's figures for an entry, or null when no paper row has the same parameters. */
    public Match match(final Experiment experiment, final LabParams p) {
        final String table = experiment.paperTable() > 0 ? Integer.toString(experiment.paperTable()) : null;
        if (table != null) {
            for (final Map<String, String> row : rows) {
                if (table.equals(row.get("table")) && matches(row, p)) {
                    return toMatch(row);
                }
            }
        }
        for (final Map<String, String> row : rows) {
            if (matches(row, p)) {
                return toMatch(row);
            }
        }
        return null;
    }

    private static boolean matches(final Map<String, String> row, final LabParams p) {
        final PublishMode mode;
        try {
            mode = PublishMode.parse(row.getOrDefault("mode", "zero-latency"));
        } catch (final IllegalArgumentException e) {
            return false;
        }
        if (mode != p.publishMode() || !same(row, "r", p.r()) || !same(row, "ex", p.ex()) || !same(row, "subs", p.subscribers())) {
            return false;
        }
        final Double rps = number(row, "rps");
        if (rps != null && Math.abs(rps - p.targetRowsPerSecond()) > 0.5) {
            return false;
        }
        if (number(row, "u") != null && !same(row, "u", p.u())) {
            return false;
        }
        if (number(row, "t_ms") != null) {
            final int t = mode == PublishMode.ZERO_LATENCY ? p.t() : p.timerMillis();
            return same(row, "t_ms", t);
        }
        return true;
    }

    private static boolean same(final Map<String, String> row, final String key, final int value) {
        final Double v = number(row, key);
        return v != null && Math.abs(v - value) < 1e-9;
    }

    private static Double number(final Map<String, String> row, final String key) {
        final String s = row.get(key);
        if (s == null || s.isEmpty()) {
            return null;
        }
        try {
            return Double.parseDouble(s);
        } catch (final NumberFormatException e) {
            return null;
        }
    }

    private static Match toMatch(final Map<String, String> row) {
        final Map<String, Double> figures = new LinkedHashMap<>();
        for (final String f : FIGURES) {
            final Double v = number(row, f);
            if (v != null) {
                figures.put(f, v);
            }
        }
        final StringBuilder ref = new StringBuilder("Table ").append(row.get("table")).append(" (");
        ref.append("r=").append(row.get("r"));
        appendIf(ref, "u", row.get("u"));
        appendIf(ref, row.getOrDefault("mode", "").startsWith("timer") ? "timer" : "t", row.get("t_ms"));
        appendIf(ref, "rows/s", row.get("rps"));
        appendIf(ref, "ex", row.get("ex"));
        appendIf(ref, "subs", row.get("subs"));
        ref.append(", ").append(row.get("mode")).append(')');
        return new Match(ref.toString(), Collections.unmodifiableMap(figures));
    }

    private static void appendIf(final StringBuilder sb, final String key, final String value) {
        if (value != null && !value.isEmpty()) {
            sb.append(", ").append(key).append('=').append(value);
        }
    }

    /** ours / paper for each paper figure the row has a value for (both positive). */
    public static Map<String, Double> ratios(final RowResult row, final Map<String, Double> paper) {
        final Map<String, Double> r = new LinkedHashMap<>();
        for (final Map.Entry<String, Double> e : paper.entrySet()) {
            final Double ours = row.ours(e.getKey());
            if (ours != null && ours > 0 && e.getValue() > 0) {
                r.put(e.getKey(), Math.round(ours / e.getValue() * 1000) / 1000.0);
            }
        }
        return r;
    }
}
