package io.jtick.core.query.result;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Timestamps and dates as ASCII without allocating: {@code 2026-11-21T09:30:00.123Z}, exactly as
 * {@link Instant#toString()} writes them (fraction in groups of three digits, only as many as
 * needed), and {@code 2026-11-21}.
 */
public final class TimeFormat {
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

    /**
     * Parses what {@link #timestamp(long, byte[], int)} writes ({@code yyyy-MM-ddTHH:mm:ss[.f..]Z},
     * 1 to 9 fraction digits) without allocating; returns {@code Long.MIN_VALUE} for anything else.
     */
    public static long parseIso(final CharSequence s) {
        final int n = s.length();
        if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
            || s.charAt(16) != ':' || s.charAt(n - 1) != 'Z') {
            return Long.MIN_VALUE;
        }
        final int y = digits(s, 0, 4);
        final int mo = digits(s, 5, 2);
        final int d = digits(s, 8, 2);
        final int h = digits(s, 11, 2);
        final int mi = digits(s, 14, 2);
        final int sec = digits(s, 17, 2);
        if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) {
            return Long.MIN_VALUE;
        }
        long nano = 0;
        if (n > 20) {
            final int fd = n - 21;
            if (s.charAt(19) != '.' || fd < 1 || fd > 9) {
                return Long.MIN_VALUE;
            }
            final int f = digits(s, 20, fd);
            if (f < 0) {
                return Long.MIN_VALUE;
            }
            nano = f;
            for (int i = fd; i < 9; i++) {
                nano *= 10;
            }
        }
        // Howard Hinnant's days_from_civil
        final int yy = mo <= 2 ? y - 1 : y;
        final int era = Math.floorDiv(yy, 400);
        final int yoe = yy - era * 400;
        final int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        final int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        final long days = (long) era * 146_097 + doe - 719_468;
        return ((days * 86_400 + h * 3600L + mi * 60L + sec) * NANOS_PER_SECOND) + nano;
    }

    private static int digits(final CharSequence s, final int at, final int count) {
        int v = 0;
        for (int i = at; i < at + count; i++) {
            final char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
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
}
