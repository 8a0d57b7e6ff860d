package io.jtick.core.auth;

import io.jtick.core.auth.AccessCheck.Access;
import io.jtick.core.auth.AccessCheck.Verdict;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AccessCheckTest {
    private static final AccessSettings TOKEN = new AccessSettings("s3cret-token", AccessSettings.Guard.AUTO, false);

    private static InetAddress ip(final String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void shouldAskNothingOnLoopback() throws Exception {
        for (final String lo : new String[] {"127.0.0.1", "127.1.2.3", "::1"}) {
            final AccessCheck c = AccessCheck.forListener(AccessSettings.DEFAULT, ip(lo));
            assertThat(c.guarded()).as(lo).isFalse();
            assertThat(c.check(Access.WRITE, (CharSequence) null)).isEqualTo(Verdict.ALLOWED);
            assertThat(c.describe()).startsWith("open");
        }
    }

    @Test
    void shouldGuardWritesOffLoopbackAndTheWildcard() throws Exception {
        for (final InetAddress bound : new InetAddress[] {null, ip("0.0.0.0"), ip("10.1.2.3"), ip("::")}) {
            final AccessCheck c = AccessCheck.forListener(TOKEN, bound);
            assertThat(c.guarded()).isTrue();
            assertThat(c.check(Access.READ, (CharSequence) null)).as("reads stay open by default").isEqualTo(Verdict.ALLOWED);
            assertThat(c.check(Access.WRITE, (CharSequence) null)).isEqualTo(Verdict.TOKEN_MISSING);
            assertThat(c.check(Access.WRITE, "")).isEqualTo(Verdict.TOKEN_MISSING);
            assertThat(c.check(Access.WRITE, "s3cret-toke")).isEqualTo(Verdict.TOKEN_WRONG);
            assertThat(c.check(Access.WRITE, "s3cret-token!")).isEqualTo(Verdict.TOKEN_WRONG);
            assertThat(c.check(Access.WRITE, "s3cret-token")).isEqualTo(Verdict.ALLOWED);
        }
        assertThat(AccessCheck.forListener(TOKEN, null).bound()).isEqualTo("*");
    }

    @Test
    void shouldCheckBytesInPlaceAsAPortWould() {
        final byte[] hello = "xxs3cret-tokenyy".getBytes(StandardCharsets.US_ASCII);
        final AccessCheck c = AccessCheck.forListener(TOKEN, null);
        assertThat(c.check(Access.WRITE, hello, 2, 12)).isEqualTo(Verdict.ALLOWED);
        assertThat(c.check(Access.WRITE, hello, 2, 11)).isEqualTo(Verdict.TOKEN_WRONG);
        assertThat(c.check(Access.WRITE, null, 0, 0)).isEqualTo(Verdict.TOKEN_MISSING);
    }

    @Test
    void shouldRefuseEveryGuardedCallWhenNoTokenIsConfigured() throws Exception {
        final AccessCheck c = AccessCheck.forListener(AccessSettings.DEFAULT, ip("0.0.0.0"));
        assertThat(c.check(Access.WRITE, "anything")).isEqualTo(Verdict.NO_TOKEN_CONFIGURED);
        assertThat(c.check(Access.READ, "anything")).isEqualTo(Verdict.ALLOWED);
        assertThat(c.describe()).contains("NO TOKEN CONFIGURED");
    }

    @Test
    void shouldProtectReadsAndLoopbackWhenAsked() throws Exception {
        final AccessCheck reads = AccessCheck.forListener(new AccessSettings("t", AccessSettings.Guard.AUTO, true), ip("0.0.0.0"));
        assertThat(reads.check(Access.READ, (CharSequence) null)).isEqualTo(Verdict.TOKEN_MISSING);
        assertThat(reads.check(Access.READ, "t")).isEqualTo(Verdict.ALLOWED);
        final AccessCheck always = AccessCheck.forListener(new AccessSettings("t", AccessSettings.Guard.ALWAYS, false), ip("127.0.0.1"));
        assertThat(always.guarded()).as("guard=always: a local reverse proxy does not open the API").isTrue();
        assertThat(always.check(Access.WRITE, (CharSequence) null)).isEqualTo(Verdict.TOKEN_MISSING);
    }

    @Test
    void shouldRefuseBadSettingsAndNeverPrintTheToken() {
        assertThatThrownBy(() -> new AccessSettings("has space", AccessSettings.Guard.AUTO, false).validate())
            .hasMessageContaining("printable ASCII without spaces [position=3]");
        assertThatThrownBy(() -> AccessSettings.Guard.parse("sometimes")).hasMessageContaining("unknown guard [guard=sometimes");
        assertThat(AccessSettings.Guard.parse(" Always ")).isEqualTo(AccessSettings.Guard.ALWAYS);
        assertThat(TOKEN.toString()).doesNotContain("s3cret").contains("token=(set)");
    }
}
