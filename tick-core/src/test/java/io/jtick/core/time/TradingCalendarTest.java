package io.jtick.core.time;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import static org.assertj.core.api.Assertions.assertThat;

class TradingCalendarTest {
    private static long nanos(final ZonedDateTime t) {
        final Instant i = t.toInstant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void shouldEndMidnightDaysAtTheNextLocalMidnight() {
        final ZoneId ny = ZoneId.of("America/New_York");
        final TradingCalendar cal = new TradingCalendar(LocalTime.MIDNIGHT, ny);
        final LocalDate d = LocalDate.of(2026, 3, 7);
        assertThat(cal.endOfDayNanos(d)).isEqualTo(nanos(ZonedDateTime.of(2026, 3, 8, 0, 0, 0, 0, ny)));
        assertThat(cal.dateOf(nanos(ZonedDateTime.of(2026, 3, 7, 23, 59, 59, 0, ny)))).isEqualTo(d);
        assertThat(cal.dateOf(nanos(ZonedDateTime.of(2026, 3, 8, 0, 0, 0, 0, ny)))).isEqualTo(d.plusDays(1));
    }

    @Test
    void shouldKeepTheDayTwentyThreeHoursLongWhenClocksSpringForward() {
        final ZoneId ny = ZoneId.of("America/New_York");
        final TradingCalendar cal = new TradingCalendar(LocalTime.MIDNIGHT, ny);
        final long start = cal.endOfDayNanos(LocalDate.of(2026, 3, 7));
        final long end = cal.endOfDayNanos(LocalDate.of(2026, 3, 8));
        assertThat(end - start).isEqualTo(23L * 3600 * 1_000_000_000L);
    }

    @Test
    void shouldFireAnEndOfDayInsideTheSpringGapOnceAtTheShiftedInstant() {
        final ZoneId ny = ZoneId.of("America/New_York");
        final TradingCalendar cal = new TradingCalendar(LocalTime.of(2, 30), ny);
        final long end = cal.endOfDayNanos(LocalDate.of(2026, 3, 8));
        assertThat(end).isEqualTo(nanos(ZonedDateTime.of(2026, 3, 8, 3, 30, 0, 0, ny)));
        assertThat(cal.dateOf(end - 1)).isEqualTo(LocalDate.of(2026, 3, 8));
        assertThat(cal.dateOf(end)).isEqualTo(LocalDate.of(2026, 3, 9));
    }

    @Test
    void shouldNotRepeatAnEndOfDayInTheAutumnOverlap() {
        final ZoneId ny = ZoneId.of("America/New_York");
        final TradingCalendar cal = new TradingCalendar(LocalTime.of(1, 30), ny);
        final long end = cal.endOfDayNanos(LocalDate.of(2026, 11, 1));
        // both 01:30 wall times happen; the day ends at the first, and the second one is already the next day
        final long secondOneThirty = end + 3600L * 1_000_000_000L;
        assertThat(cal.dateOf(secondOneThirty)).isEqualTo(LocalDate.of(2026, 11, 2));
        assertThat(cal.endOfDayNanos(LocalDate.of(2026, 11, 2)) - end).isEqualTo(25L * 3600 * 1_000_000_000L);
    }

    @Test
    void shouldPutEveningsIntoTheNextDayForAFiveOClockClose() {
        final ZoneId ny = ZoneId.of("America/New_York");
        final TradingCalendar cal = new TradingCalendar(LocalTime.of(17, 0), ny);
        assertThat(cal.dateOf(nanos(ZonedDateTime.of(2026, 11, 23, 18, 0, 0, 0, ny)))).isEqualTo(LocalDate.of(2026, 11, 24));
        assertThat(cal.dateOf(nanos(ZonedDateTime.of(2026, 11, 23, 16, 59, 0, 0, ny)))).isEqualTo(LocalDate.of(2026, 11, 23));
    }
}
