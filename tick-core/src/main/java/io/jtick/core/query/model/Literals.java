package io.jtick.core.query.model;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Parsing of time, date and duration literals in query documents. */
public final class Literals {
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private Literals() {
    }

    /**
     * A time literal: absolute epoch nanoseconds, or a time of day (nanoseconds since midnight UTC)
     * that each segment resolves against its own date.
     */
    public record TimeLit(long nanos, boolean timeOfDay) {
        public long resolve(final int epochDay) {
            return timeOfDay ? epochDay * NANOS_PER_DAY + nanos : nanos;
        }
    }

    /**
     * Epoch ns as a number or a string of digits; an ISO-8601 instant ({@code 2026-11-21T09:30:00Z},
     * with an offset, or without a zone meaning UTC); kdb's {@code 2026.11.21D09:30:00.000}; a date
     * (its midnight UTC); or a time of day {@code HH:MM[:SS[.fffffffff]]} on each segment's date.
     */
    public static TimeLit time(final Object v, final String column) {
        if (v instanceof Long l) {
            return new TimeLit(l, false);
        }
        if (!(v instanceof String s0)) {
            throw QueryException.bad("type mismatch [column=" + column + ", type=timestamp, value=" + v
                + "]: expected epoch nanoseconds, an ISO-8601 time like 2026-11-21T09:30:00Z or a time of day like 09:30");
        }
        final String s = s0.trim();
        if (s.matches("-?\\d{1,19}")) {
            try {
                return new TimeLit(Long.parseLong(s), false);
            } catch (final NumberFormatException e) {
                throw badTime(column, v);
            }
        }
        if (s.matches("\\d{1,2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?")) {
            final String[] hms = s.split(":");
            final long h = Long.parseLong(hms[0]);
            final long m = Long.parseLong(hms[1]);
            long nanos = 0;
            long sec = 0;
            if (hms.length > 2) {
                final String[] sf = hms[2].split("\\.");
                sec = Long.parseLong(sf[0]);
                if (sf.length > 1) {
                    nanos = Long.parseLong((sf[1] + "000000000").substring(0, 9));
                }
            }
            if (h > 24 || m > 59 || sec > 59) {
                throw badTime(column, v);
            }
            return new TimeLit(((h * 60 + m) * 60 + sec) * 1_000_000_000L + nanos, true);
        }
        String iso = s;
        if (iso.matches("\\d{4}\\.\\d{2}\\.\\d{2}.*")) {
            iso = iso.substring(0, 4) + "-" + iso.substring(5, 7) + "-" + iso.substring(8, 10) + iso.substring(10).replace('D', 'T');
        }
        try {
            if (iso.length() == 10) {
                return new TimeLit(LocalDate.parse(iso).toEpochDay() * NANOS_PER_DAY, false);
            }
            final Instant i;
            if (iso.endsWith("Z") || iso.endsWith("z")) {
                i = Instant.parse(iso.toUpperCase(java.util.Locale.ROOT));
            } else if (iso.matches(".*[+-]\\d{2}:?\\d{2}$")) {
                i = OffsetDateTime.parse(iso).toInstant();
            } else {
                i = LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
            }
            return new TimeLit(Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano()), false);
        } catch (final DateTimeException | ArithmeticException e) {
            throw badTime(column, v);
        }
    }

    private static QueryException badTime(final String column, final Object v) {
        return QueryException.bad("bad time [column=" + column + ", value=" + v
            + "]: expected epoch nanoseconds, an ISO-8601 time like 2026-11-21T09:30:00Z or a time of day like 09:30");
    }

    /** A date {@code 2026-11-21} or {@code 2026.11.21} as an epoch day. */
    static int day(final Object v, final String field) {
        if (v instanceof String s && s.matches("\\d{4}[-.]\\d{2}[-.]\\d{2}")) {
            try {
                return Math.toIntExact(LocalDate.parse(s.replace('.', '-')).toEpochDay());
            } catch (final DateTimeException | ArithmeticException e) {
                throw badDate(field, v);
            }
        }
        throw badDate(field, v);
    }

    private static QueryException badDate(final String field, final Object v) {
        return QueryException.bad("bad date [" + field + "=" + v + "]: expected a date like 2026-11-21");
    }

    /**
     * A duration in nanoseconds: a number of ns, or a number with a unit: {@code ns us ms s m h d}
     * ({@code "1m"}, {@code "500ms"}, {@code "1.5s"}), or {@code HH:MM:SS}.
     */
    public static long duration(final Object v, final String what) {
        if (v instanceof Long l) {
            if (l <= 0) {
                throw badDuration(what, v);
            }
            return l;
        }
        if (v instanceof String s0) {
            final String s = s0.trim();
            if (s.matches("\\d{1,2}:\\d{2}:\\d{2}")) {
                final TimeLit t = time(s, what);
                if (t.nanos() <= 0) {
                    throw badDuration(what, v);
                }
                return t.nanos();
            }
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s|m|min|h|d)")
                .matcher(s);
            if (m.matches()) {
                final double n = Double.parseDouble(m.group(1));
                final double unit;
                switch (m.group(2)) {
                    case "ns":
                        unit = 1;
                        break;
                    case "us":
                    case "µs":
                        unit = 1e3;
                        break;
                    case "ms":
                        unit = 1e6;
                        break;
                    case "s":
                        unit = 1e9;
                        break;
                    case "m":
                    case "min":
                        unit = 60e9;
                        break;
                    case "h":
                        unit = 3600e9;
                        break;
                    default:
                        unit = 86_400e9;
                        break;
                }
                final double ns = n * unit;
                if (ns >= 1 && ns < 9.2e18 && ns == Math.rint(ns)) {
                    return (long) ns;
                }
            }
        }
        throw badDuration(what, v);
    }

    private static QueryException badDuration(final String what, final Object v) {
        return QueryException.bad("bad duration [" + what + "=" + v + "]: expected a positive duration like \"1m\", \"500ms\" "
            + "or a number of nanoseconds");
    }
}
