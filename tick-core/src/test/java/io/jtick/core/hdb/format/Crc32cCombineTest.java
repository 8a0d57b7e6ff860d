package io.jtick.core.hdb.format;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

class Crc32cCombineTest {
    private static int crc(final byte[] b, final int from, final int to) {
        final CRC32C c = new CRC32C();
        c.update(b, from, to - from);
        return (int) c.getValue();
    }

    @Test
    void shouldGiveTheChecksumOfTheWholeFromItsParts() {
        final Random rnd = new Random(9);
        for (int t = 0; t < 200; t++) {
            final byte[] b = new byte[1 + rnd.nextInt(5000)];
            rnd.nextBytes(b);
            final int cut = rnd.nextInt(b.length + 1);
            assertThat(Crc32cCombine.combine(crc(b, 0, cut), crc(b, cut, b.length), b.length - cut)).isEqualTo(crc(b, 0, b.length));
        }
    }

    @Test
    void shouldFoldManyPiecesInOrder() {
        final byte[] b = new byte[100_000];
        new Random(4).nextBytes(b);
        int acc = crc(b, 0, 0);
        int at = 0;
        for (final int len : new int[] {0, 1, 7, 8, 4096, 13, 50_000, 45_875}) {
            acc = Crc32cCombine.combine(acc, crc(b, at, at + len), len);
            at += len;
        }
        assertThat(at).isEqualTo(b.length);
        assertThat(acc).isEqualTo(crc(b, 0, b.length));
    }
}
