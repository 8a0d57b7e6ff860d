package io.jtick.feedsim;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

class ApiTokenFilterTest {
    private static MockHttpServletResponse call(final ApiTokenFilter filter, final String remote, final String header,
                                                final String value) throws Exception {
        final MockHttpServletRequest req = new MockHttpServletRequest("POST", "/api/runs");
        req.setRemoteAddr(remote);
        if (header != null) {
            req.addHeader(header, value);
        }
        final MockHttpServletResponse res = new MockHttpServletResponse();
        final MockFilterChain chain = new MockFilterChain();
        filter.doFilter(req, res, chain);
        if (chain.getRequest() != null) {
            res.setStatus(299);
        }
        return res;
    }

    @Test
    void shouldLetLoopbackThroughWithoutAToken() throws Exception {
        final ApiTokenFilter open = new ApiTokenFilter("");
        assertThat(call(open, "127.0.0.1", null, null).getStatus()).isEqualTo(299);
        assertThat(call(open, "0:0:0:0:0:0:0:1", null, null).getStatus()).isEqualTo(299);
        assertThat(call(new ApiTokenFilter("s3cret"), "127.0.0.1", null, null).getStatus()).isEqualTo(299);
    }

    @Test
    void shouldRefuseOtherHostsWhenNoTokenIsConfigured() throws Exception {
        final MockHttpServletResponse res = call(new ApiTokenFilter(""), "10.1.2.3", "Authorization", "Bearer anything");
        assertThat(res.getStatus()).isEqualTo(403);
        assertThat(res.getContentAsString()).contains("loopback only", "tick.feed.api-token", "10.1.2.3");
        assertThat(call(new ApiTokenFilter(null), "127.0.0.1", "X-Forwarded-For", "203.0.113.9").getStatus())
            .as("a forwarded request is not a local one").isEqualTo(403);
        assertThat(call(new ApiTokenFilter(null), "localhost.example.org", null, null).getStatus()).as("names are not addresses")
            .isEqualTo(403);
    }

    @Test
    void shouldLetOtherHostsThroughOnlyWithTheToken() throws Exception {
        final ApiTokenFilter filter = new ApiTokenFilter("s3cret");
        final MockHttpServletResponse none = call(filter, "192.168.1.20", null, null);
        assertThat(none.getStatus()).isEqualTo(401);
        assertThat(none.getHeader("WWW-Authenticate")).startsWith("Bearer");
        assertThat(none.getContentAsString()).contains("token is required");
        assertThat(call(filter, "192.168.1.20", "Authorization", "Bearer wrong").getStatus()).isEqualTo(401);
        assertThat(call(filter, "192.168.1.20", "Authorization", "Bearer s3cret").getStatus()).isEqualTo(299);
        assertThat(call(filter, "192.168.1.20", "Authorization", "bearer s3cret").getStatus()).isEqualTo(299);
        assertThat(call(filter, "192.168.1.20", "X-Api-Token", "s3cret").getStatus()).isEqualTo(299);
        assertThat(call(filter, "2001:db8::7", "X-Api-Token", "s3cre").getStatus()).isEqualTo(401);
    }
}
