package io.jtick.rdb;

import io.jtick.core.wire.LeaderHint.Address;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tick.rdb.tp-addresses}, bound as Spring binds it: it replaces {@code tp-host}/{@code tp-port} when set. */
class RdbPropertiesTest {
    private static RdbProperties bind(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.rdb", RdbProperties.class);
    }

    @Test
    void shouldSubscribeToTheListedTickerplantsOrElseToHostAndPort() {
        assertThat(bind(Map.of()).tickerplants()).containsExactly(new Address("127.0.0.1", 5010));
        assertThat(bind(Map.of("tick.rdb.tp-host", "tp", "tick.rdb.tp-port", "6010")).tickerplants())
            .containsExactly(new Address("tp", 6010));
        assertThat(bind(Map.of("tick.rdb.tp-host", "tp", "tick.rdb.tp-addresses", "tp-0.tp:5010, tp-1.tp:5010,tp-2.tp:5010"))
            .tickerplants()).containsExactly(new Address("tp-0.tp", 5010), new Address("tp-1.tp", 5010), new Address("tp-2.tp", 5010));
    }

    @Test
    void shouldNameTheBadEntry() {
        final RdbProperties p = bind(Map.of("tick.rdb.tp-addresses", "tp-0.tp:5010,tp-1.tp"));
        assertThatThrownBy(p::tickerplants).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("bad tickerplant address [key=tick.rdb.tp-addresses, entry=tp-1.tp, expected=host:port with a port in 1..65535,"
                + " or unix:<path>]");
    }

    @Test
    void shouldStopBindingOnABadValueNamingItsKey() {
        assertThatThrownBy(() -> bind(Map.of("tick.rdb.hdb.transfer", "copy")))
            .hasRootCauseMessage("not one of reload|upload [key=tick.rdb.hdb.transfer, value=copy]");
        assertThatThrownBy(() -> bind(Map.of("tick.rdb.kdb-port", "-2")))
            .hasRootCauseMessage("out of range [key=tick.rdb.kdb-port, value=-2, min=-1, max=65535]");
        assertThatThrownBy(() -> bind(Map.of("tick.rdb.name", " ")))
            .hasRootCauseMessage("empty [key=tick.rdb.name, value= ]");
        assertThat(bind(Map.of("tick.rdb.hdb.direct-io", "OFF")).hdb().directIo()).isEqualTo("OFF");
        assertThatThrownBy(() -> bind(Map.of("tick.rdb.idle-spin", "-1ms")))
            .hasRootCauseMessage("too small [key=tick.rdb.idle-spin, value=-1000000, min=0]");
        assertThat(bind(Map.of()).idleSpin()).as("blocks at once by default").isZero();
    }
}
