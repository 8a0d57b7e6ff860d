package io.jtick.core.client;

import io.jtick.core.wire.LeaderHint.Address;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tickerplants a client may use, in the order it tries them: one address for a single TP, every
 * member of a TP cluster otherwise. Parsed from a comma list {@code host:port,host:port} (a
 * setting such as {@code tick.rdb.tp-addresses}); a bad entry is refused with a message naming the
 * setting and the entry.
 */
public final class TickerplantAddresses {
    private TickerplantAddresses() {
    }

    /**
     * The addresses of {@code list}, a comma list of {@code host:port} (an IPv6 host in brackets,
     * {@code [::1]:5010}); blanks around entries are ignored.
     *
     * @param key the setting the list comes from, named in the error
     * @throws IllegalArgumentException empty, an entry without host or port, a port out of 1..65535, or an address twice
     */
    public static List<Address> parse(final String key, final String list) {
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException("no tickerplant address [key=" + key + ", expected=host:port,host:port]");
        }
        final List<Address> out = new ArrayList<>();
        for (final String raw : list.split(",", -1)) {
            out.add(parseOne(key, raw.strip()));
        }
        return check(key, out);
    }

    /**
     * {@code addresses} as a client takes them: at least one, each with a host and a port in 1..65535,
     * none twice.
     *
     * @param what who holds them, named in the error (a setting's key or a client's name)
     * @return an unmodifiable copy
     */
    public static List<Address> check(final String what, final List<Address> addresses) {
        if (addresses == null || addresses.isEmpty()) {
            throw new IllegalArgumentException("no tickerplant address [key=" + what + ", expected=host:port,host:port]");
        }
        final Set<Address> seen = new HashSet<>();
        for (final Address a : addresses) {
            if (a == null || a.host() == null || a.host().isBlank() || a.port() < 1 || a.port() > 65535) {
                throw new IllegalArgumentException("bad tickerplant address [key=" + what + ", entry=" + a + ", expected=host:port with a "
                    + "port in 1..65535]");
            }
            if (!seen.add(a)) {
                throw new IllegalArgumentException("tickerplant address listed twice [key=" + what + ", entry=" + a + "]");
            }
        }
        return List.copyOf(addresses);
    }

    /** {@code host:port,host:port}, as {@link #parse} reads it. */
    public static String format(final List<Address> addresses) {
        final StringBuilder b = new StringBuilder();
        for (final Address a : addresses) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(a.host().indexOf(':') >= 0 ? "[" + a.host() + "]" : a.host()).append(':').append(a.port());
        }
        return b.toString();
    }

    private static Address parseOne(final String key, final String entry) {
        final int colon = entry.lastIndexOf(':');
        String host = colon < 0 ? "" : entry.substring(0, colon).strip();
        final String port = colon < 0 ? "" : entry.substring(colon + 1).strip();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int p = -1;
        if (!port.isEmpty() && port.chars().allMatch(Character::isDigit) && port.length() <= 5) {
            p = Integer.parseInt(port);
        }
        if (host.isEmpty() || host.indexOf(':') >= 0 && !entry.startsWith("[") || p < 1 || p > 65535) {
            throw new IllegalArgumentException("bad tickerplant address [key=" + key + ", entry=" + entry + ", expected=host:port with a "
                + "port in 1..65535]");
        }
        return new Address(host, p);
    }
}
