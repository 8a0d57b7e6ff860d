package io.jtick.core.hdb.format;

/**
 * CRC32C of a concatenation from the CRC32C of its parts ({@link java.util.zip.CRC32C}, Castagnoli,
 * reflected, all-ones pre- and post-conditioning), as zlib's {@code crc32_combine} does for its
 * polynomial: {@code crc(A || B) = combine(crc(A), crc(B), length(B))}, in O(log length) steps.
 * Lets a writer checksum a block from pieces it wrote out of order.
 */
public final class Crc32cCombine {
    /** The reflected Castagnoli polynomial. */
    private static final int POLY = 0x82F63B78;
    /** {@code X2N[k]} = x^(2^k) mod p. */
    private static final int[] X2N = new int[32];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int k = 1; k < 32; k++) {
            p = multiply(p, p);
            X2N[k] = p;
        }
    }

    private Crc32cCombine() {
    }

    /** The CRC32C of {@code A || B} given {@code crcA}, {@code crcB} and the bytes of B. */
    public static int combine(final int crcA, final int crcB, final long lengthB) {
        return multiply(powerOfX(lengthB, 3), crcA) ^ crcB;
    }

    /** a(x) b(x) mod p, both reflected. */
    private static int multiply(final int a, final int b) {
        int m = 1 << 31;
        int p = 0;
        int bb = b;
        while (true) {
            if ((a & m) != 0) {
                p ^= bb;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            bb = (bb & 1) != 0 ? (bb >>> 1) ^ POLY : bb >>> 1;
        }
    }

    /** x^(n 2^k) mod p. */
    private static int powerOfX(final long n, final int k) {
        int p = 1 << 31; // x^0
        long m = n;
        int kk = k;
        while (m != 0) {
            if ((m & 1) != 0) {
                p = multiply(X2N[kk & 31], p);
            }
            m >>>= 1;
            kk++;
        }
        return p;
    }
}
