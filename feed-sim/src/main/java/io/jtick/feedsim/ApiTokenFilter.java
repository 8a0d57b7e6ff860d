package io.jtick.feedsim;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Guards {@code /api/*} of feed-sim, which can start load: a request from loopback passes; a
 * request from any other address must carry the configured token as
 * {@code Authorization: Bearer <token>} or {@code X-Api-Token: <token>} (401 otherwise), and with
 * no token configured it is refused (403). A request that carries {@code Forwarded} or
 * {@code X-Forwarded-For} never counts as loopback: a local proxy must not open the API to the
 * hosts behind it. Tokens are compared in constant time.
 */
final class ApiTokenFilter extends OncePerRequestFilter {
    private static final Logger LOG = LoggerFactory.getLogger(ApiTokenFilter.class);

    private final byte[] token;

    ApiTokenFilter(final String token) {
        this.token = token == null || token.isBlank() ? null : token.trim().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void doFilterInternal(final HttpServletRequest request, final HttpServletResponse response, final FilterChain chain)
        throws ServletException, IOException {
        if (local(request)) {
            chain.doFilter(request, response);
            return;
        }
        if (token == null) {
            deny(response, HttpServletResponse.SC_FORBIDDEN, "the feed-sim API answers loopback only: set tick.feed.api-token"
                + " (TICK_FEED_API_TOKEN) and send it as 'Authorization: Bearer <token>' to use it from another host [remote="
                + request.getRemoteAddr() + "]");
            return;
        }
        final String presented = presented(request);
        if (presented == null || !MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8))) {
            LOG.warn("refused an API request without a valid token [remote={}, method={}, path={}]", request.getRemoteAddr(),
                request.getMethod(), request.getRequestURI());
            response.setHeader("WWW-Authenticate", "Bearer realm=\"jtick feed-sim\"");
            deny(response, HttpServletResponse.SC_UNAUTHORIZED, presented == null
                ? "an API token is required from another host: send 'Authorization: Bearer <token>' or 'X-Api-Token: <token>'"
                : "wrong API token");
            return;
        }
        chain.doFilter(request, response);
    }

    static boolean local(final HttpServletRequest request) {
        if (request.getHeader("Forwarded") != null || request.getHeader("X-Forwarded-For") != null) {
            return false;
        }
        final String addr = request.getRemoteAddr();
        // an IP literal only (IPv6 has a ':', IPv4 is digits and dots): never a name, so never a DNS lookup
        if (addr == null || addr.isEmpty() || addr.indexOf(':') < 0 && !addr.matches("[0-9.]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(addr).isLoopbackAddress();
        } catch (final UnknownHostException e) {
            return false;
        }
    }

    private static String presented(final HttpServletRequest request) {
        final String auth = request.getHeader("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return auth.substring(7).trim();
        }
        final String x = request.getHeader("X-Api-Token");
        return x == null ? null : x.trim();
    }

    private static void deny(final HttpServletResponse response, final int status, final String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write("{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\",\"status\":" + status + "}");
    }
}
