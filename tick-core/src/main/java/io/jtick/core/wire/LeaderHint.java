package io.jtick.core.wire;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one form in which a follower names the cluster's leader in a {@link ErrorCode#NOT_LEADER}
 * refusal ({@code ... [leader=host:port]}, or {@code leader=unknown} during an election), and its
 * parser on the client side: the native protocol's ERROR reason and the kdb+ error string carry
 * the same text, each naming the leader's port of its own protocol.
 */
public final class LeaderHint {
    private static final Pattern LEADER = Pattern.compile("leader=([^\\s,\\]]+):(\\d+)");

    private LeaderHint() {
    }

    /** The refusal's reason for a feed that reached a follower; {@code host} null when the leader is not known. */
    public static String reason(final String host, final int port) {
        return "this tickerplant is a cluster follower and takes no feeds [leader="
            + (host == null || port <= 0 ? "unknown" : host + ":" + port) + "]";
    }

    /** The leader named in a {@link ErrorCode#NOT_LEADER} reason, or null when it names none. */
    public static Address leaderOf(final String reason) {
        if (reason == null) {
            return null;
        }
        final Matcher m = LEADER.matcher(reason);
        return m.find() ? new Address(m.group(1), Integer.parseInt(m.group(2))) : null;
    }

    /**
     * A host and port, or a unix domain socket on this machine ({@link #unix}: host {@code unix:<path>}, port 0,
     * written {@code unix:<path>}).
     */
    public record Address(String host, int port) {
        /** The host of a {@link #unix} address starts with this. */
        public static final String UNIX = "unix:";

        /** The unix domain socket at {@code path}. */
        public static Address unix(final String path) {
            return new Address(UNIX + path, 0);
        }

        /** True for a unix domain socket's address. */
        public boolean isUnix() {
            return host != null && host.startsWith(UNIX) && port == 0;
        }

        /** The socket file's path of a {@link #unix} address. */
        public String path() {
            if (!isUnix()) {
                throw new IllegalStateException("not a unix socket address [address=" + this + "]");
            }
            return host.substring(UNIX.length());
        }

        @Override
        public String toString() {
            return isUnix() ? host : host + ":" + port;
        }
    }
}
