package io.jtick.core.kdb;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Logins on the kdb+ port: users file (plain and MD5 passwords), API token, loopback-only without either. */
@ExtendWith(LeakCheck.class)
class KdbAccessTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdeX";

    @TempDir
    Path dir;

    private static byte[] b(final String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void shouldLetAnyoneInOnLoopbackAndOnlyTheTokenElsewhere() throws IOException {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final InetAddress any = InetAddress.getByName("0.0.0.0");
        assertThat(KdbAccess.of(KdbSettings.onPort(0), loopback).check("", b(""))).isEqualTo(KdbAccess.Verdict.ALLOWED);
        assertThat(KdbAccess.of(KdbSettings.onPort(0), any).check("bob", b("x"))).isEqualTo(KdbAccess.Verdict.NO_CREDENTIALS_CONFIGURED);
        final KdbSettings token = new KdbSettings(0, null, new AccessSettings(TOKEN, AccessSettings.Guard.AUTO, false));
        assertThat(KdbAccess.of(token, any).check("bob", b(TOKEN))).isEqualTo(KdbAccess.Verdict.ALLOWED);
        assertThat(KdbAccess.of(token, any).check("bob", b("nope"))).isEqualTo(KdbAccess.Verdict.TOKEN_WRONG);
        assertThat(KdbAccess.of(token, any).check("bob", b(""))).isEqualTo(KdbAccess.Verdict.TOKEN_MISSING);
        final KdbSettings always = new KdbSettings(0, null, new AccessSettings(TOKEN, AccessSettings.Guard.ALWAYS, false));
        assertThat(KdbAccess.of(always, loopback).check("bob", b(""))).isEqualTo(KdbAccess.Verdict.TOKEN_MISSING);
        assertThat(KdbAccess.of(KdbSettings.onPort(0), any).describe()).startsWith("NOBODY");
    }

    @Test
    void shouldCheckAUsersFileLikeQsMinusU() throws Exception {
        final String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b("hashed-pw")));
        final Path users = Files.writeString(dir.resolve("users"), "# feeds\nalice:plain-pw\nbob:" + md5 + "\n\n");
        final KdbSettings s = new KdbSettings(0, users, new AccessSettings(TOKEN, AccessSettings.Guard.AUTO, false));
        final KdbAccess a = KdbAccess.of(s, InetAddress.getLoopbackAddress());
        assertThat(a.check("alice", b("plain-pw"))).isEqualTo(KdbAccess.Verdict.ALLOWED);
        assertThat(a.check("bob", b("hashed-pw"))).isEqualTo(KdbAccess.Verdict.ALLOWED);
        assertThat(a.check("bob", b(md5))).as("the hash itself is not the password").isEqualTo(KdbAccess.Verdict.WRONG_PASSWORD);
        assertThat(a.check("alice", b("wrong"))).isEqualTo(KdbAccess.Verdict.WRONG_PASSWORD);
        assertThat(a.check("carol", b(""))).as("a users file holds on loopback too").isEqualTo(KdbAccess.Verdict.UNKNOWN_USER);
        assertThat(a.check("carol", b(TOKEN))).as("the API token is accepted beside it").isEqualTo(KdbAccess.Verdict.ALLOWED);
        assertThat(a.describe()).contains("2 users");

        final Path bad = Files.writeString(dir.resolve("bad"), "alice\n");
        assertThatThrownBy(() -> KdbAccess.of(new KdbSettings(0, bad, AccessSettings.DEFAULT), null))
            .hasMessageContaining("expected user:password").hasMessageContaining("line=1");
    }
}
