package io.jtick.helm;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** helm template and lint through Helm's library, on the real chart (what helm/check.sh runs on a machine without helm). */
class ChartCommandTest {
    private static final String CHART = "jtick";

    @Test
    void shouldRenderTheChartAsHelmTemplateDoes() {
        final String defaults = ChartCommand.template(new String[] {"template", "rel", CHART});
        assertThat(defaults).contains("kind: StatefulSet", "name: rel-jtick-tp", "image: jtick/tp-service:0.1.0-SNAPSHOT",
            "name: TICK_RDB_HDB_TRANSFER", "kind: PodDisruptionBudget");
        assertThat(defaults).doesNotContain("kind: NetworkPolicy", "kind: ServiceMonitor");
        final String set = ChartCommand.template(new String[] {"template", "rel", CHART, "--namespace", "ticks", "--set",
            "networkPolicy.enabled=true,image.registry=registry.example:5000/"});
        assertThat(set).contains("kind: NetworkPolicy", "image: registry.example:5000/jtick/hdb-service:0.1.0-SNAPSHOT");
    }

    @Test
    void shouldPassOnTheChartsOwnRefusals() {
        assertThatThrownBy(() -> ChartCommand.template(new String[] {"template", "rel", CHART, "--set", "hdb.enabled=false"}))
            .hasMessageContaining("rdb.enabled needs hdb.enabled");
    }

    @Test
    void shouldLintTheChartStrictly() {
        assertThat(ChartCommand.run(new String[] {"lint", "--strict", CHART})).isZero();
    }

    @Test
    void shouldRefuseWhatItDoesNotDo() {
        assertThatThrownBy(() -> ChartCommand.run(new String[] {"install", CHART}))
            .hasMessageContaining("unknown command [command=install");
        assertThatThrownBy(() -> ChartCommand.template(new String[] {"template", "rel", CHART, "--values", "x.yaml"}))
            .hasMessageContaining("template takes --namespace and --set only");
        assertThatThrownBy(() -> ChartCommand.template(new String[] {"template", "rel", CHART, "--set", "novalue"}))
            .hasMessageContaining("--set takes KEY=VALUE");
    }
}
