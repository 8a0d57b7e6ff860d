package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.TableFormats;

import java.time.LocalDate;
import java.time.Period;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long each table's days stay in each tier and when they go ({@code tick.hdb.retention.<table>}):
 * a comma-separated list of {@code <tier> <ISO-8601 period>} steps, each the oldest age a day stays
 * in that tier, ages strictly increasing, optionally ending with {@code delete} (older days are
 * deleted; without it they stay in the last tier). A tier is one of the tier policy's names
 * ({@code hot}, {@code cold}, ...) or an encoding or format written out ({@code parquet},
 * {@code parquet/snappy}, {@code auto/zstd:3}). Example: {@code hot P7D, parquet P90D, cold P5Y, delete}.
 * Tables without a rule follow the tier policy and are never deleted.
 */
public final class RetentionPolicy {
    /** One step: a tier, up to an age. */
    public record Step(TierPolicy.Tier tier, Period maxAge) {
    }

    /** One table's steps. */
    public record Rule(String table, List<Step> steps, boolean delete, String text) {
        public Rule {
            steps = List.copyOf(steps);
        }
    }

    private final TierPolicy tiers;
    private final Map<String, Rule> rules;

    private RetentionPolicy(final TierPolicy tiers, final Map<String, Rule> rules) {
        this.tiers = tiers;
        this.rules = Map.copyOf(rules);
    }

    /** No table has a rule: everything follows {@code tiers}. */
    public static RetentionPolicy none(final TierPolicy tiers) {
        return new RetentionPolicy(tiers, Map.of());
    }

    /**
     * Parses every table's rule; the first bad one throws {@link IllegalArgumentException} naming the
     * table, the step and what is wrong (an unknown tier, an unreadable period, ages that do not increase).
     */
    public static RetentionPolicy parse(final TierPolicy tiers, final Map<String, String> byTable) {
        final Map<String, Rule> rules = new LinkedHashMap<>();
        if (byTable != null) {
            for (final Map.Entry<String, String> e : byTable.entrySet()) {
                rules.put(e.getKey(), rule(tiers, e.getKey(), e.getValue()));
            }
        }
        return new RetentionPolicy(tiers, rules);
    }

    private static Rule rule(final TierPolicy tiers, final String table, final String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty retention rule [table=" + table + "]");
        }
        final List<Step> steps = new ArrayList<>();
        boolean delete = false;
        final LocalDate probe = LocalDate.of(2000, 1, 1);
        LocalDate last = null;
        for (final String raw : text.split(",")) {
            final String part = raw.trim();
            if (delete) {
                throw new IllegalArgumentException("delete must be the last step [table=" + table + ", step=" + part + "]");
            }
            if ("delete".equalsIgnoreCase(part)) {
                if (steps.isEmpty()) {
                    throw new IllegalArgumentException("delete needs a step before it, the age after which days go [table=" + table + "]");
                }
                delete = true;
                continue;
            }
            final String[] words = part.split("\\s+");
            if (words.length != 2) {
                throw new IllegalArgumentException("a step is '<tier> <period>' like 'hot P7D' [table=" + table + ", step=" + part + "]");
            }
            final Period age;
            try {
                age = Period.parse(words[1].toUpperCase(Locale.ROOT));
            } catch (final DateTimeParseException e) {
                throw new IllegalArgumentException("bad period, expected ISO-8601 like P7D, P3M, P5Y [table=" + table + ", step=" + part
                    + "]", e);
            }
            final LocalDate until = probe.plus(age);
            if (age.isNegative() || last != null && !until.isAfter(last)) {
                throw new IllegalArgumentException("overlapping ages: each step's age must exceed the one before [table=" + table
                    + ", step=" + part + "]");
            }
            last = until;
            steps.add(new Step(tier(tiers, table, words[0], part), age));
        }
        return new Rule(table, steps, delete, text.trim());
    }

    private static TierPolicy.Tier tier(final TierPolicy tiers, final String table, final String name, final String step) {
        final TierPolicy.Tier named = tiers.tier(name);
        if (named != null) {
            return named;
        }
        try {
            return TierPolicy.Tier.parse(name, -1, name, Map.of(), Map.of());
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown tier: not one of tick.hdb.tiers " + names(tiers) + " nor an encoding or format ("
                + String.join(", ", TableFormats.names()) + ", auto/zstd:3, ...) [table=" + table + ", step=" + step + "]", e);
        }
    }

    private static List<String> names(final TierPolicy tiers) {
        return tiers.tiers().stream().map(TierPolicy.Tier::name).toList();
    }

    /** The rules, by table. */
    public Map<String, Rule> rules() {
        return rules;
    }

    /** True when a day of {@code table} dated {@code date} is past its last step and its rule ends with delete. */
    public boolean expired(final String table, final LocalDate date, final LocalDate today) {
        final Rule r = rules.get(table);
        return r != null && r.delete() && today.isAfter(date.plus(r.steps().get(r.steps().size() - 1).maxAge()));
    }

    /** The tier a day belongs in: its table's step for its age (the last step when older), or the tier policy's. */
    public TierPolicy.Tier tierFor(final String table, final LocalDate date, final LocalDate today) {
        final Rule r = rules.get(table);
        if (r == null) {
            return tiers.tierFor(date, today);
        }
        for (final Step s : r.steps()) {
            if (!today.isAfter(date.plus(s.maxAge()))) {
                return s.tier();
            }
        }
        return r.steps().get(r.steps().size() - 1).tier();
    }
}
