package io.jtick.core.time;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * Which trading day an instant belongs to, and when that day ends. Day D ends at {@code eodTime} on
 * D in {@code zone}, except that an end of day at midnight ends D at the start of D+1 (so a day
 * ending at 17:00 New York makes Monday 18:00 part of Tuesday, the FX convention). Instants are
 * compared, never local times, so DST gaps and overlaps cannot fire an end of day twice or skip it.
 */
public final class TradingCalendar {
    private final LocalTime eodTime;
    private final ZoneId zone;

    public TradingCalendar(final LocalTime eodTime, final ZoneId zone) {
        this.eodTime = eodTime;
        this.zone = zone;
    }

    /** Epoch nanoseconds at which trading day {@code date} ends. */
    public long endOfDayNanos(final LocalDate date) {
        final ZonedDateTime end = LocalTime.MIDNIGHT.equals(eodTime)
            ? date.plusDays(1).atStartOfDay(zone)
            : ZonedDateTime.of(date, eodTime, zone);
        final Instant i = end.toInstant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** The trading day the instant belongs to. */
    public LocalDate dateOf(final long epochNanos) {
        final Instant t = Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
        final LocalDate local = t.atZone(zone).toLocalDate();
        return epochNanos >= endOfDayNanos(local) ? local.plusDays(1) : local;
    }

    public LocalTime eodTime() {
        return eodTime;
    }

    public ZoneId zone() {
        return zone;
    }
}
