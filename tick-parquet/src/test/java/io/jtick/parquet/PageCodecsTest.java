package io.jtick.parquet;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A compressed page decodes to its bytes; a page cut short, or a size that is not the page's, is a clear error, never short data. */
class PageCodecsTest {
    @ParameterizedTest
    @EnumSource(value = CompressionCodecName.class, names = {"ZSTD", "SNAPPY", "LZ4_RAW"})
    void shouldDecodeAPageAndRefuseOneCutShortOrOfAnotherSize(final CompressionCodecName codec) throws IOException {
        final byte[] raw = new byte[100_000];
        final Random r = new Random(7);
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) (i % 97 < 60 ? i / 97 : r.nextInt(16));   // compressible, not trivially
        }
        final byte[] page = PageCodecs.compress(codec, raw);
        assertThat(page.length).isLessThan(raw.length);
        assertThat(PageCodecs.decompress(codec, page, raw.length)).isEqualTo(raw);

        final byte[] cut = Arrays.copyOf(page, page.length / 2);
        assertThatThrownBy(() -> PageCodecs.decompress(codec, cut, raw.length)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> PageCodecs.decompress(codec, page, raw.length + 1)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> PageCodecs.decompress(codec, page, raw.length - 1)).isInstanceOf(IOException.class);
    }
}
