package io.jtick.hdb;

import io.jtick.objectstore.ObjectStoreSettings;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void shouldRefuseABadRetentionRuleNamingItsKeyAndStep() {
        final HdbProperties p = new Binder(new MapConfigurationPropertySource(Map.of("tick.hdb.retention.trade", "hot P30D, parquet P7D")))
            .bindOrCreate("tick.hdb", HdbProperties.class);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.retentionPolicy(p.tierPolicy()));
        assertTrue(e.getMessage().contains("key=tick.hdb.retention") && e.getMessage().contains("table=trade")
            && e.getMessage().contains("step=parquet P7D"), e.getMessage());
        final HdbProperties ok = new Binder(new MapConfigurationPropertySource(Map.of("tick.hdb.retention.trade",
            "hot P7D, parquet P90D, cold P5Y, delete"))).bindOrCreate("tick.hdb", HdbProperties.class);
        assertEquals("parquet", ok.retentionPolicy(ok.tierPolicy()).tierFor("trade", java.time.LocalDate.of(2026, 1, 1),
            java.time.LocalDate.of(2026, 2, 1)).storedFormat().substring(0, 7));
    }

    @Test
    void shouldDefaultRowsPerUpdate() {
        final HdbProperties.Replay r = bind(Map.of());
        assertEquals(8192, r.rowsPerUpdate());
        assertEquals(1_048_576, r.maxRowsPerUpdate());
    }

    private static HdbProperties.ObjectStore objectStore(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.hdb.object-store",
            HdbProperties.ObjectStore.class);
    }

    @Test
    void shouldPutTheColdTiersDiskCacheHiddenUnderTheRootByDefaultAndTakeAnotherFolderOrNone() {
        final Path root = Path.of("var", "hdb");
        final ObjectStoreSettings defaults = objectStore(Map.of("tick.hdb.object-store.bucket", "ticks"))
            .settings(root);
        assertEquals(root.resolve(".cold-cache"), defaults.diskCacheDir());
        assertEquals(4L << 30, defaults.diskCacheBytes());

        final ObjectStoreSettings set = objectStore(Map.of("tick.hdb.object-store.bucket", "ticks",
            "tick.hdb.object-store.disk-cache-dir", "/cache/cold", "tick.hdb.object-store.disk-cache-size", "512MB")).settings(root);
        assertEquals(Path.of("/cache/cold"), set.diskCacheDir());
        assertEquals(512L << 20, set.diskCacheBytes());

        assertEquals(0, objectStore(Map.of("tick.hdb.object-store.bucket", "ticks", "tick.hdb.object-store.disk-cache-size", "0"))
            .settings(root).diskCacheBytes());
        final IllegalArgumentException tiny = assertThrows(IllegalArgumentException.class, () -> objectStore(Map.of(
            "tick.hdb.object-store.bucket", "ticks", "tick.hdb.object-store.disk-cache-size", "1KB")).settings(root));
        assertTrue(tiny.getMessage().contains("key=tick.hdb.object-store.disk-cache-size"), tiny.getMessage());
    }

    @Test
    void shouldStopBindingOnABadValueNamingItsKey() {
        final Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("tick.hdb.study.runs", "0")));
        final Exception runs = assertThrows(Exception.class, () -> binder.bindOrCreate("tick.hdb", HdbProperties.class));
        assertEquals("out of range [key=tick.hdb.study.runs, value=0, min=1, max=100]", rootCause(runs).getMessage());
        final Exception window = assertThrows(Exception.class, () -> bind(Map.of("tick.hdb.replay.window-rows", "10")));
        assertEquals("too small [key=tick.hdb.replay.window-rows, value=10, min=1024]", rootCause(window).getMessage());
        final Binder tiers = new Binder(new MapConfigurationPropertySource(Map.of("tick.hdb.tiers[0].name", "hot",
            "tick.hdb.tiers[0].encoding", " ")));
        final Exception tier = assertThrows(Exception.class, () -> tiers.bindOrCreate("tick.hdb", HdbProperties.class));
        assertEquals("empty [key=tick.hdb.tiers[].encoding, value= ]", rootCause(tier).getMessage());
    }

    private static Throwable rootCause(final Throwable t) {
        Throwable c = t;
        while (c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
