package io.jtick.core.query;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Timestamps and dates as ASCII without allocating: {@code 2026-11-21T09:30:00.123Z}, exactly as
 * {@link Instant#toString()} writes them (fraction in groups of three digits, only as many as
 * needed), and {@code 2026-11-21}.
 */
final class TimeFormat {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private TimeFormat() {
    }

    /** Writes a timestamp at {@code at}; needs 30 bytes of room (more for years outside 0000..9999). */
    static int timestamp(final long nanos, final byte[] dst, final int at) {
        final long secs = Math.floorDiv(nanos, NANOS_PER_SECOND);
        final int nano = (int) Math.floorMod(nanos, NANOS_PER_SECOND);
        final long days = Math.floorDiv(secs, 86_400L);
        final int sod = (int) Math.floorMod(secs, 86_400L);
        int p = date(days, dst, at);
        if (p < 0) {
            final byte[] s = Instant.ofEpochSecond(secs, nano).toString().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(s, 0, dst, at, s.length);
            return at + s.length;
        }
        dst[p++] = 'T';
        p = two(sod / 3600, dst, p);
        dst[p++] = ':';
        p = two(sod / 60 % 60, dst, p);
        dst[p++] = ':';
        p = two(sod % 60, dst, p);
        if (nano != 0) {
            dst[p++] = '.';
            final int digits;
            int v;
            if (nano % 1_000_000 == 0) {
                digits = 3;
                v = nano / 1_000_000;
            } else if (nano % 1000 == 0) {
                digits = 6;
                v = nano / 1000;
            } else {
                digits = 9;
                v = nano;
            }
            for (int i = digits - 1; i >= 0; i--) {
                dst[p + i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            p += digits;
        }
        dst[p++] = 'Z';
        return p;
    }

    /** Writes {@code yyyy-MM-dd}; returns -1 for years outside 0000..9999 (caller falls back). */
    static int date(final long epochDay, final byte[] dst, final int at) {
        // Howard Hinnant's civil_from_days
        final long z = epochDay + 719_468;
        final long era = Math.floorDiv(z, 146_097);
        final long doe = z - era * 146_097;
        final long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        final long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        final long mp = (5 * doy + 2) / 153;
        final int d = (int) (doy - (153 * mp + 2) / 5 + 1);
        final int m = (int) (mp < 10 ? mp + 3 : mp - 9);
        final long y = yoe + era * 400 + (m <= 2 ? 1 : 0);
        if (y < 0 || y > 9999) {
            return -1;
        }
        int p = at;
        p = two((int) (y / 100), dst, p);
        p = two((int) (y % 100), dst, p);
        dst[p++] = '-';
        p = two(m, dst, p);
        dst[p++] = '-';
        return two(d, dst, p);
    }

    /** A date for years outside 0000..9999. */
    static String dateSlow(final long epochDay) {
        return LocalDate.ofEpochDay(epochDay).toString();
    }

    private static int two(final int v, final byte[] dst, final int p) {
        dst[p] = (byte) ('0' + v / 10);
        dst[p + 1] = (byte) ('0' + v % 10);
        return p + 2;
    }

    /** For tests and slow paths. */
    static String timestamp(final long nanos) {
        final byte[] b = new byte[64];
        return new String(b, 0, timestamp(nanos, b, 0), StandardCharsets.US_ASCII);
    }
}
