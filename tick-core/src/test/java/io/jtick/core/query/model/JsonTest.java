package io.jtick.core.query.model;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTest {
    @Test
    void shouldParseJsonStrictly() {
        final Object v = Json.parse(" {\"a\": [1, -2.5e3, \"x\\u0041\\n\", true, false, null], \"b\": {}} ");
        assertThat(v).isEqualTo(Map.of("a", java.util.Arrays.asList(1L, -2500.0, "xA\n", true, false, Json.NULL), "b", Map.of()));
        assertThat(Json.parse("12345678901234567890")).isEqualTo(1.2345678901234567e19);
        assertThat(Json.write(Json.parse("{\"k\":[\"a\\\"b\",1,2.5,null]}"))).isEqualTo("{\"k\":[\"a\\\"b\",1,2.5,null]}");
    }
}
