package io.jtick.lab.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a profiling run does: an experiment, its matrix (one lab per entry, in order) and the most
 * seconds each entry may take. An entry runs at least {@link #minSeconds()} and stops earlier than
 * {@code durationSeconds} only when its medians have settled.
 *
 * @param experiment      experiment id ({@link Experiment#id()})
 * @param durationSeconds the most seconds one matrix entry runs, warm-up included
 * @param matrix          the entries, validated
 */
public record RunSpec(String experiment, int durationSeconds, List<LabParams> matrix) {
    /** Per-entry maximum when the caller gives none: the default matrix of all five experiments stays under 15 minutes. */
    public static final int DEFAULT_DURATION_SECONDS = 8;
    public static final int MAX_DURATION_SECONDS = 600;
    public static final int MAX_MATRIX = 100;
    /** No run is planned for longer than this (matrix entries × durationSeconds). */
    public static final int MAX_PLANNED_SECONDS = 4 * 3600;
    /** Fields of a request body. */
    public static final String KEYS = "experiment|durationSeconds|matrix";

    public RunSpec {
        matrix = List.copyOf(matrix);
    }

    public Experiment kind() {
        return Experiment.parse(experiment);
    }

    /** Seconds an entry runs before it may stop on settled medians. */
    public int minSeconds() {
        return Math.min(durationSeconds, 3);
    }

    /**
     * Reads a request body ({@code {"experiment":"rows-per-update","durationSeconds":5,"matrix":[{"r":1,"u":10,"t":1}]}}):
     * matrix entries override the experiment's base, an absent matrix means the experiment's
     * default one. Throws {@link IllegalArgumentException} with the reason (the REST layer's 400).
     */
    public static RunSpec parse(final Map<String, ?> body) {
        if (body == null) {
            throw new IllegalArgumentException("a body is required [fields=" + KEYS + "]");
        }
        for (final String key : body.keySet()) {
            if (!"experiment".equals(key) && !"durationSeconds".equals(key) && !"matrix".equals(key)) {
                throw new IllegalArgumentException("unknown field [field=" + key + ", known=" + KEYS + "]");
            }
        }
        final Object e = body.get("experiment");
        if (!(e instanceof String)) {
            throw new IllegalArgumentException("experiment is required [known=" + Experiment.ids() + "]");
        }
        final Experiment experiment = Experiment.parse((String) e);
        final Object d = body.get("durationSeconds");
        final int duration = d == null ? DEFAULT_DURATION_SECONDS : LabParams.integer("durationSeconds", d);
        final Object m = body.get("matrix");
        final List<LabParams> matrix = new ArrayList<>();
        if (m == null) {
            matrix.addAll(experiment.defaultMatrix());
        } else if (m instanceof List<?> entries) {
            int k = 0;
            for (final Object entry : entries) {
                k++;
                if (!(entry instanceof Map<?, ?> map)) {
                    throw new IllegalArgumentException("matrix entries must be objects [entry=" + k + ", value=" + entry + "]");
                }
                final Map<String, Object> overrides = new java.util.LinkedHashMap<>();
                for (final Map.Entry<?, ?> x : map.entrySet()) {
                    overrides.put(String.valueOf(x.getKey()), x.getValue());
                }
                try {
                    matrix.add(experiment.base().with(overrides));
                } catch (final IllegalArgumentException ex) {
                    throw new IllegalArgumentException("matrix entry " + k + ": " + ex.getMessage(), ex);
                }
            }
        } else {
            throw new IllegalArgumentException("matrix must be a list of objects like {\"r\":1,\"u\":10,\"t\":1}");
        }
        return new RunSpec(experiment.id(), duration, matrix).validate();
    }

    /** Checks the duration, the matrix size and every entry; the message names the first problem. */
    public RunSpec validate() {
        final Experiment e = kind();
        if (durationSeconds < 1 || durationSeconds > MAX_DURATION_SECONDS) {
            throw new IllegalArgumentException("durationSeconds must be 1.." + MAX_DURATION_SECONDS + " [durationSeconds="
                + durationSeconds + "]");
        }
        if (matrix.isEmpty()) {
            throw new IllegalArgumentException(e == Experiment.CUSTOM
                ? "a custom experiment needs a matrix, e.g. [{\"r\":100,\"u\":1,\"t\":1,\"subscribers\":3}] [keys=" + LabParams.KEYS + "]"
                : "matrix must not be empty (leave it out for the experiment's default matrix)");
        }
        if (matrix.size() > MAX_MATRIX) {
            throw new IllegalArgumentException("matrix too long [entries=" + matrix.size() + ", max=" + MAX_MATRIX + "]");
        }
        if ((long) matrix.size() * durationSeconds > MAX_PLANNED_SECONDS) {
            throw new IllegalArgumentException("run planned too long: entries x durationSeconds over the limit [plannedSeconds="
                + (long) matrix.size() * durationSeconds + ", max=" + MAX_PLANNED_SECONDS + "]");
        }
        for (int k = 0; k < matrix.size(); k++) {
            try {
                e.check(matrix.get(k));
            } catch (final IllegalArgumentException ex) {
                throw new IllegalArgumentException("matrix entry " + (k + 1) + ": " + ex.getMessage(), ex);
            }
        }
        return this;
    }
}
