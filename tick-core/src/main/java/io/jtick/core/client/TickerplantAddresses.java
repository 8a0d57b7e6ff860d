package io.jtick.core.client;

import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.Transport;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tickerplants a client may use, in the order it tries them: one address for a single TP, every
 * member of a TP cluster otherwise. Parsed from a comma list {@code host:port,host:port} (a
 * setting such as {@code tick.rdb.tp-addresses}); an entry {@code unix:<path>} is a tickerplant's unix
 * domain socket on this machine ({@code tick.tp.unix-socket}); a bad entry is refused with a message
 * naming the setting and the entry.
 */
public final class TickerplantAddresses {
    /** Bytes of a unix socket's path that fit a socket address ({@code sun_path}, less its terminating zero). */
    public static final int UNIX_PATH_MAX = 107;

    private TickerplantAddresses() {
    }

    /**
     * The addresses of {@code list}, a comma list of {@code host:port} (an IPv6 host in brackets,
     * {@code [::1]:5010}) or {@code unix:<path>}; blanks around entries are ignored.
     *
     * @param key the setting the list comes from, named in the error
     * @throws IllegalArgumentException empty, an entry without host or port, a port out of 1..65535, a unix socket path
     *                                  that is empty or too long, or an address twice
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
            if (a != null && a.isUnix()) {
                checkUnixPath(what, a.path());
                if (!Transport.isEpoll()) {
                    throw new IllegalArgumentException("a unix socket address needs the native epoll transport (Linux, without"
                        + " -Djtick.transport=nio) [key=" + what + ", entry=" + a + "]");
                }
            } else if (a == null || a.host() == null || a.host().isBlank() || a.port() < 1 || a.port() > 65535) {
                throw new IllegalArgumentException("bad tickerplant address [key=" + what + ", entry=" + a + ", expected=host:port with a "
                    + "port in 1..65535, or unix:<path>]");
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
            if (a.isUnix()) {
                b.append(a);
            } else {
                b.append(a.host().indexOf(':') >= 0 ? "[" + a.host() + "]" : a.host()).append(':').append(a.port());
            }
        }
        return b.toString();
    }

    /**
     * Checks a unix domain socket's path: not empty, and within the 107 bytes a socket address holds.
     *
     * @param what the setting or client it comes from, named in the error
     */
    public static String checkUnixPath(final String what, final String path) {
        if (path == null || path.isBlank() || path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > UNIX_PATH_MAX) {
            throw new IllegalArgumentException("bad unix socket path [key=" + what + ", path=" + path + ", expected=a path of 1.."
                + UNIX_PATH_MAX + " bytes]");
        }
        return path;
    }

    private static Address parseOne(final String key, final String entry) {
        if (entry.startsWith(Address.UNIX)) {
            return Address.unix(checkUnixPath(key, entry.substring(Address.UNIX.length()).strip()));
        }
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
                + "port in 1..65535, or unix:<path>]");
        }
        return new Address(host, p);
    }
}
