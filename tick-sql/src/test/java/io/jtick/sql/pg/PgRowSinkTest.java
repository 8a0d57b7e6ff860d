package io.jtick.sql.pg;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class PgRowSinkTest {
    private static long nanos(final String instant) {
        final Instant t = Instant.parse(instant);
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Test
    void shouldWriteTimestampsInTextAsPostgresDoesToTheMicrosecond() {
        assertThat(PgRowSink.timestamp(nanos("2026-11-21T09:30:00Z"))).isEqualTo("2026-11-21 09:30:00+00");
        assertThat(PgRowSink.timestamp(nanos("2026-11-21T09:30:00.123456789Z"))).isEqualTo("2026-11-21 09:30:00.123456+00");
        assertThat(PgRowSink.timestamp(nanos("2026-11-21T09:30:00.000000123Z"))).as("below a microsecond: cut, not 123 us")
            .isEqualTo("2026-11-21 09:30:00+00");
        assertThat(PgRowSink.timestamp(nanos("2026-11-21T09:30:00.120000Z"))).isEqualTo("2026-11-21 09:30:00.12+00");
        assertThat(PgRowSink.timestamp(nanos("1969-12-31T23:59:59.999999500Z"))).as("before 1970: toward the past")
            .isEqualTo("1969-12-31 23:59:59.999999+00");
    }
}
