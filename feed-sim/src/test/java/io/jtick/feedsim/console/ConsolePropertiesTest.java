package io.jtick.feedsim.console;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tick.console.*}, bound as Spring binds it: the services' URLs, http or https only. */
class ConsolePropertiesTest {
    private static ConsoleProperties bind(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.console", ConsoleProperties.class);
    }

    @Test
    void shouldTakeHttpUrlsAndStopBindingOnAnyOtherNamingItsKey() {
        assertThat(bind(Map.of("tick.console.rdb-url", "https://rdb:8443/")).baseUrl("rdb")).isEqualTo("https://rdb:8443");
        assertThat(bind(Map.of()).baseUrl("tp")).isEqualTo("http://127.0.0.1:8010");
        assertThatThrownBy(() -> bind(Map.of("tick.console.tp-url", "ftp://tp:8010")))
            .hasRootCauseMessage("not one of https?://.+ [key=tick.console.tp-url, value=ftp://tp:8010]");
    }
}
