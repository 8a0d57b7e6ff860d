package io.jtick.core.client;

import io.jtick.core.wire.LeaderHint.Address;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The comma lists of tickerplant addresses the services' settings take, and the errors that name a bad entry. */
class TickerplantAddressesTest {
    private static final String KEY = "tick.rdb.tp-addresses";

    @Test
    void shouldReadACommaListInOrder() {
        assertThat(TickerplantAddresses.parse(KEY, "tp-0.tp:5010, tp-1.tp:5010 ,10.0.0.7:6010,[::1]:5010")).containsExactly(
            new Address("tp-0.tp", 5010), new Address("tp-1.tp", 5010), new Address("10.0.0.7", 6010), new Address("::1", 5010));
        assertThat(TickerplantAddresses.parse(KEY, "127.0.0.1:5010")).containsExactly(new Address("127.0.0.1", 5010));
        assertThat(TickerplantAddresses.format(TickerplantAddresses.parse(KEY, "a:1,[::1]:2"))).isEqualTo("a:1,[::1]:2");
    }

    @Test
    void shouldReadUnixSocketPaths() {
        assertThat(TickerplantAddresses.parse(KEY, "unix:/var/run/jtick/tp.sock, unix:var/run/tp.sock,127.0.0.1:5010")).containsExactly(
            Address.unix("/var/run/jtick/tp.sock"), Address.unix("var/run/tp.sock"), new Address("127.0.0.1", 5010));
        final Address unix = Address.unix("/tmp/tp.sock");
        assertThat(unix.isUnix()).isTrue();
        assertThat(unix.path()).isEqualTo("/tmp/tp.sock");
        assertThat(new Address("unix", 5010).isUnix()).as("a host named unix").isFalse();
        assertThat(TickerplantAddresses.format(TickerplantAddresses.parse(KEY, "unix:/tmp/tp.sock,a:1")))
            .isEqualTo("unix:/tmp/tp.sock,a:1");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "unix:")).hasMessage(
            "bad unix socket path [key=tick.rdb.tp-addresses, path=, expected=a path of 1..107 bytes]");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "unix:/" + "d".repeat(107))).hasMessageContaining("bad unix socket path");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "unix:/tmp/a,unix:/tmp/a")).hasMessage(
            "tickerplant address listed twice [key=tick.rdb.tp-addresses, entry=unix:/tmp/a]");
    }

    @Test
    void shouldNameTheSettingAndTheBadEntry() {
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "127.0.0.1:5010,tp-1")).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("bad tickerplant address [key=tick.rdb.tp-addresses, entry=tp-1, expected=host:port with a port in 1..65535,"
                + " or unix:<path>]");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "tp-0:5010,tp-1:70000")).hasMessageContaining("entry=tp-1:70000");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "tp-0:0")).hasMessageContaining("entry=tp-0:0");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "tp-0:x")).hasMessageContaining("entry=tp-0:x");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, ":5010")).hasMessageContaining("entry=:5010");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "tp-0:5010,,tp-1:5010")).hasMessageContaining("entry=,");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "::1:5010")).as("IPv6 wants brackets").hasMessageContaining(
            "entry=::1:5010");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, "tp-0:5010,tp-0:5010")).hasMessage(
            "tickerplant address listed twice [key=tick.rdb.tp-addresses, entry=tp-0:5010]");
        assertThatThrownBy(() -> TickerplantAddresses.parse(KEY, " ")).hasMessage(
            "no tickerplant address [key=tick.rdb.tp-addresses, expected=host:port,host:port]");
    }

    @Test
    void shouldRefuseClientSettingsWithoutAUsableAddress() {
        assertThatThrownBy(() -> FeedPublisher.Settings.of(List.of(), "md")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("no tickerplant address [key=feed md");
        assertThatThrownBy(() -> TickClient.Settings.of(List.of(new Address("", 5010)), "rdb")).hasMessageContaining(
            "bad tickerplant address [key=subscriber rdb, entry=:5010");
        assertThatThrownBy(() -> TickClient.Settings.of("127.0.0.1", 0, "rdb")).hasMessageContaining("entry=127.0.0.1:0");
    }
}
