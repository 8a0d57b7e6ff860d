package io.jtick.core.table;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScanHintTest {
    @Test
    void shouldKeepACopyOfTheColumnsNotTheCallersList() {
        final List<String> columns = new ArrayList<>(List.of("time", "sym", "price"));
        final ScanHint hint = new ScanHint(columns, Map.of("sym", Map.of("in", List.of("A"))));

        columns.add("size");

        assertThat(hint.columns()).containsExactly("time", "sym", "price");
        assertThatThrownBy(() -> hint.columns().add("size")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(hint.where()).isEqualTo(Map.of("sym", Map.of("in", List.of("A"))));
    }

    @Test
    void shouldAllowNoConditions() {
        final ScanHint hint = new ScanHint(List.of("time", "sym"), null);

        assertThat(hint.where()).isNull();
        assertThat(hint).isEqualTo(new ScanHint(List.of("time", "sym"), null));
    }

    @Test
    void shouldRejectMissingColumns() {
        assertThatThrownBy(() -> new ScanHint(null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ScanHint(java.util.Arrays.asList("time", null), null)).isInstanceOf(NullPointerException.class);
    }
}
