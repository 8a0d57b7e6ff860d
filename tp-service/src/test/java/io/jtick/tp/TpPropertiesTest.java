package io.jtick.tp;

import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.LeaderHint.Address;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A chained TP's upstream, bound as Spring binds it: {@code tick.tp.upstream-addresses} replaces {@code upstream-host}/{@code -port}. */
class TpPropertiesTest {
    private static TpProperties bind(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.tp", TpProperties.class);
    }

    @Test
    void shouldChainToTheListedUpstreamTickerplantsOrElseToHostAndPort() {
        assertThat(bind(Map.of()).toSettings().chained()).isFalse();
        assertThat(bind(Map.of()).toSettings().upstream()).isEmpty();
        assertThat(bind(Map.of("tick.tp.upstream-host", "up", "tick.tp.upstream-port", "6010")).toSettings().upstream())
            .containsExactly(new Address("up", 6010));
        final TickerplantSettings s = bind(Map.of("tick.tp.upstream-addresses", "tp-0.tp:5010,tp-1.tp:5010,tp-2.tp:5010")).toSettings();
        assertThat(s.chained()).isTrue();
        assertThat(s.upstream()).containsExactly(new Address("tp-0.tp", 5010), new Address("tp-1.tp", 5010), new Address("tp-2.tp", 5010));
        assertThat(s.upstreamHost() + ":" + s.upstreamPort()).as("the first, where one address is shown").isEqualTo("tp-0.tp:5010");
    }

    @Test
    void shouldNameTheBadEntry() {
        assertThatThrownBy(() -> bind(Map.of("tick.tp.upstream-addresses", "tp-0.tp:5010,tp-0.tp:5010")).toSettings())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("tickerplant address listed twice [key=tick.tp.upstream-addresses, entry=tp-0.tp:5010]");
    }

    @Test
    void shouldStopBindingOnAValueOutOfRangeNamingItsKey() {
        assertThatThrownBy(() -> bind(Map.of("tick.tp.port", "70000")))
            .hasRootCauseMessage("out of range [key=tick.tp.port, value=70000, min=0, max=65535]");
        assertThatThrownBy(() -> bind(Map.of("tick.tp.feed-ack-updates", "0")))
            .hasRootCauseMessage("too small [key=tick.tp.feed-ack-updates, value=0, min=1]");
        assertThat(bind(Map.of("tick.tp.kdb-port", "-1")).kdbPort()).as("-1: no kdb+ port").isEqualTo(-1);
    }
}
