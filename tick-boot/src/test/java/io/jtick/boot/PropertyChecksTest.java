package io.jtick.boot;

import io.jtick.boot.access.ApiAccessProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The properties checks, and the shared records that use them bound as Spring binds them. */
class PropertyChecksTest {
    private static <T> T bind(final String prefix, final Class<T> type, final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate(prefix, type);
    }

    @Test
    void shouldNameTheKeyTheValueAndTheBound() {
        PropertyChecks.range("k", 5, 5, 5);
        PropertyChecks.atLeast("k", 1, 1);
        PropertyChecks.text("k", "x");
        PropertyChecks.matches("k", "On", "(?i)auto|on|off");
        assertThatThrownBy(() -> PropertyChecks.range("k", 6, 0, 5)).hasMessage("out of range [key=k, value=6, min=0, max=5]");
        assertThatThrownBy(() -> PropertyChecks.atLeast("k", 0, 1)).hasMessage("too small [key=k, value=0, min=1]");
        assertThatThrownBy(() -> PropertyChecks.present("k", null)).hasMessage("no value [key=k]");
        assertThatThrownBy(() -> PropertyChecks.text("k", null)).hasMessage("empty [key=k, value=]");
        assertThatThrownBy(() -> PropertyChecks.matches("k", "onn", "(?i)auto|on|off"))
            .hasMessage("not one of (?i)auto|on|off [key=k, value=onn]");
        assertThatThrownBy(() -> PropertyChecks.matches("k", null, "a|b")).hasMessage("no value [key=k]");
    }

    @Test
    void shouldBindTheQueryLimitsAndStopOnABadOne() {
        assertThat(bind("tick.query", QueryProperties.class, Map.of()).limits().maxRows()).isEqualTo(1_000_000);
        assertThatThrownBy(() -> bind("tick.query", QueryProperties.class, Map.of("tick.query.max-rows", "0")))
            .hasRootCauseMessage("out of range [key=tick.query.max-rows, value=0, min=1, max=2000000000]");
        assertThatThrownBy(() -> bind("tick.api", ApiAccessProperties.class, Map.of("tick.api.guard", " ")))
            .hasRootCauseMessage("empty [key=tick.api.guard, value= ]");
    }
}
