package io.jtick.feedsim;

import io.jtick.core.wire.LeaderHint.Address;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tick.feed.tp-addresses}, bound as Spring binds it: the feed's tickerplants, replacing {@code tp-host}/{@code tp-port}. */
class FeedPropertiesTest {
    private static FeedProperties bind(final Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tick.feed", FeedProperties.class);
    }

    @Test
    void shouldConnectTheFeedToTheListedTickerplantsOrElseToHostAndPort() {
        assertThat(bind(Map.of()).feedSettings(null).connection().addresses()).containsExactly(new Address("127.0.0.1", 5010));
        assertThat(bind(Map.of("tick.feed.tp-port", "6010", "tick.feed.tp-addresses", "10.0.0.1:5010,10.0.0.2:5010,10.0.0.3:5010"))
            .feedSettings(null).connection().addresses())
            .containsExactly(new Address("10.0.0.1", 5010), new Address("10.0.0.2", 5010), new Address("10.0.0.3", 5010));
        assertThat(bind(Map.of("tick.feed.tp-addresses", "a:1,b:2")).feedSettings(null).tp()).isEqualTo("a:1,b:2");
    }

    @Test
    void shouldNameTheBadEntry() {
        final FeedProperties p = bind(Map.of("tick.feed.tp-addresses", "10.0.0.1:5010,10.0.0.2:99999"));
        assertThatThrownBy(() -> p.feedSettings(null)).isInstanceOf(IllegalArgumentException.class).hasMessage(
            "bad tickerplant address [key=tick.feed.tp-addresses, entry=10.0.0.2:99999, expected=host:port with a port in 1..65535,"
                + " or unix:<path>]");
    }

    @Test
    void shouldStopBindingOnABadValueNamingItsKey() {
        assertThatThrownBy(() -> bind(Map.of("tick.feed.table", "order")))
            .hasRootCauseMessage("not one of trade|quote [key=tick.feed.table, value=order]");
        assertThatThrownBy(() -> bind(Map.of("tick.feed.name", "f".repeat(256))))
            .hasRootCauseMessage("longer than 255 characters [key=tick.feed.name, length=256]");
    }
}
