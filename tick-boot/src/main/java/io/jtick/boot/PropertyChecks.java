package io.jtick.boot;

import java.util.regex.Pattern;

/**
 * The checks the services' {@code @ConfigurationProperties} records make in their constructors: a
 * bad value stops start-up with Spring Boot's "Failed to bind properties under ..." naming the key,
 * the value and what it must be. Plain code rather than Bean Validation: Hibernate Validator was
 * ~550 classes held by every idle service for these few range checks (docs/operations.md "Memory").
 */
public final class PropertyChecks {
    private PropertyChecks() {
    }

    /** {@code value} is set (a key given an empty value binds null). */
    public static void present(final String key, final Object value) {
        if (value == null) {
            throw new IllegalArgumentException("no value [key=" + key + "]");
        }
    }

    /** {@code value} is set and not blank. */
    public static void text(final String key, final String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("empty [key=" + key + ", value=" + (value == null ? "" : value) + "]");
        }
    }

    /** {@code min <= value <= max}. */
    public static void range(final String key, final long value, final long min, final long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("out of range [key=" + key + ", value=" + value + ", min=" + min + ", max=" + max + "]");
        }
    }

    /** {@code value >= min}. */
    public static void atLeast(final String key, final long value, final long min) {
        if (value < min) {
            throw new IllegalArgumentException("too small [key=" + key + ", value=" + value + ", min=" + min + "]");
        }
    }

    /** {@code value} is set and matches {@code regex} whole. */
    public static void matches(final String key, final String value, final String regex) {
        present(key, value);
        if (!Pattern.matches(regex, value)) {
            throw new IllegalArgumentException("not one of " + regex + " [key=" + key + ", value=" + value + "]");
        }
    }
}
