package io.jtick.boot.access;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessCheck.Access;
import io.jtick.core.auth.AccessCheck.Verdict;
import io.jtick.core.auth.ClientSubjects;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UrlPathHelper;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Guards {@code /api/*} of every service with the service's {@link AccessCheck}. A call is a read
 * when its method is GET, HEAD or OPTIONS, or when it POSTs a query document (a path ending in
 * {@code /query}: {@code /api/query}, {@code /api/gateway/query}); every other call changes state
 * (end of day, mode, reload, tiering, import, replay, starting load) and is a write. Where the check
 * asks for the token, the caller sends it as {@code Authorization: Bearer <token>} or
 * {@code X-Api-Token: <token>}: without it 401 (with {@code WWW-Authenticate}), a wrong one 401, and
 * 403 when the service has no token configured. The caller's address counts for nothing: a local
 * proxy, a sidecar or {@code kubectl port-forward} all arrive from loopback. A client certificate the HTTPS
 * connector verified ({@code tick.tls.client-auth=want|need}) whose subject is in {@code tick.tls.client-subjects}
 * stands for the token, for the access its line gives. Refusals are counted in {@code tick.api.refused} by reason.
 */
final class ApiTokenFilter extends OncePerRequestFilter {
    private static final Logger LOG = LoggerFactory.getLogger(ApiTokenFilter.class);
    /** The query endpoints: POST, but they only read. */
    private static final Pattern QUERY = Pattern.compile("/api(/[A-Za-z0-9_-]+)*/query");
    private static final UrlPathHelper PATHS = new UrlPathHelper();

    private final AccessCheck check;
    private final ClientSubjects subjects;
    private final Map<Verdict, Counter> refused = new EnumMap<>(Verdict.class);

    ApiTokenFilter(final AccessCheck check, final ClientSubjects subjects, final MeterRegistry registry) {
        this.check = check;
        this.subjects = subjects;
        if (registry != null) {
            refused.put(Verdict.NO_TOKEN_CONFIGURED, counter(registry, "no-token-configured"));
            refused.put(Verdict.TOKEN_MISSING, counter(registry, "token-missing"));
            refused.put(Verdict.TOKEN_WRONG, counter(registry, "token-wrong"));
        }
    }

    private static Counter counter(final MeterRegistry registry, final String reason) {
        return Counter.builder("tick.api.refused").description("REST API calls refused by the token check").tag("reason", reason)
            .register(registry);
    }

    /** Read or write: see the class comment. */
    static Access access(final HttpServletRequest request) {
        final String method = request.getMethod();
        if ("GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
            return Access.READ;
        }
        if ("POST".equals(method) && QUERY.matcher(PATHS.getPathWithinApplication(request)).matches()) {
            return Access.READ;
        }
        return Access.WRITE;
    }

    @Override
    protected void doFilterInternal(final HttpServletRequest request, final HttpServletResponse response, final FilterChain chain)
        throws ServletException, IOException {
        if (!check.guarded()) {
            chain.doFilter(request, response);
            return;
        }
        final Access access = access(request);
        final Verdict verdict = check.check(access, presented(request), certified(request));
        if (verdict.allowed()) {
            chain.doFilter(request, response);
            return;
        }
        final Counter c = refused.get(verdict);
        if (c != null) {
            c.increment();
        }
        LOG.warn("refused an API call [reason={}, access={}, method={}, path={}, remote={}]", verdict, access, request.getMethod(),
            request.getRequestURI(), request.getRemoteAddr());
        final String what = request.getMethod() + " " + request.getRequestURI();
        if (verdict == Verdict.NO_TOKEN_CONFIGURED) {
            deny(response, HttpServletResponse.SC_FORBIDDEN, what + " needs the API token here and this service has none: set"
                + " tick.api.token (TICK_API_TOKEN) and send it as 'Authorization: Bearer <token>' [bound=" + check.bound() + "]");
            return;
        }
        response.setHeader("WWW-Authenticate", "Bearer realm=\"jtick\"");
        deny(response, HttpServletResponse.SC_UNAUTHORIZED, verdict == Verdict.TOKEN_MISSING
            ? what + " needs the API token: send 'Authorization: Bearer <token>' or 'X-Api-Token: <token>'"
            : "wrong API token [method=" + request.getMethod() + ", path=" + request.getRequestURI() + "]");
    }

    /** The access of the client certificate the TLS connector verified ({@code tick.tls.client-subjects}), or null. */
    private AccessCheck.Access certified(final HttpServletRequest request) {
        if (subjects.isEmpty() || !(request.getAttribute("jakarta.servlet.request.X509Certificate") instanceof X509Certificate[] chain)
            || chain.length == 0) {
            return null;
        }
        return subjects.grant(chain[0].getSubjectX500Principal());
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
