package io.jtick.hdb;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The replay's rows per update keep the keys users already set ({@code batch-rows}, {@code max-batch-rows}). */
class HdbPropertiesTest {
    private static HdbProperties.Replay bind(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.hdb.replay", HdbProperties.Replay.class);
    }

    @Test
    void shouldBindRowsPerUpdateFromTheBatchRowsKeys() {
        final HdbProperties.Replay r = bind(Map.of("tick.hdb.replay.batch-rows", "500", "tick.hdb.replay.max-batch-rows", "2000"));
        assertEquals(500, r.rowsPerUpdate());
        assertEquals(2000, r.maxRowsPerUpdate());
    }

    @Test
    void shouldDefaultRowsPerUpdate() {
        final HdbProperties.Replay r = bind(Map.of());
        assertEquals(8192, r.rowsPerUpdate());
        assertEquals(1_048_576, r.maxRowsPerUpdate());
    }
}
