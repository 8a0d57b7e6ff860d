package io.jtick.boot;

import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Parses the values of a query body the same way in every service (RDB and HDB): times as epoch
 * nanoseconds or ISO-8601 instants, dates as {@code yyyy-MM-dd}. Bad values throw
 * {@link IllegalArgumentException} naming the field, which {@link ApiErrors} answers with 400.
 */
public final class QueryArgs {
    private QueryArgs() {
    }

    /** Epoch nanoseconds from a JSON number, a string of digits or an ISO-8601 instant; null stays null. */
    public static Long nanos(final String field, final Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigInteger big && big.bitLength() < 64) {
            return big.longValue();
        }
        if (value instanceof String s) {
            final String text = s.trim();
            if (text.matches("-?\\d{1,19}")) {
                try {
                    return Long.parseLong(text);
                } catch (final NumberFormatException e) {
                    throw badTime(field, value);
                }
            }
            try {
                final Instant i = Instant.parse(text);
                return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
            } catch (final DateTimeParseException | ArithmeticException e) {
                throw badTime(field, value);
            }
        }
        throw badTime(field, value);
    }

    /** A date written {@code yyyy-MM-dd}; null or blank stays null. */
    public static LocalDate date(final String field, final String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return LocalDate.parse(value.trim());
        } catch (final DateTimeParseException e) {
            throw new IllegalArgumentException("bad date [" + field + "=" + value + "]: expected yyyy-MM-dd like 2026-11-20");
        }
    }

    private static IllegalArgumentException badTime(final String field, final Object value) {
        return new IllegalArgumentException("bad time [" + field + "=" + value
            + "]: expected epoch nanoseconds or an ISO-8601 instant like 2026-11-21T09:30:00Z");
    }
}
