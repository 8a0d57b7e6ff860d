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
        assertThat(defaults).doesNotContain("JAVA_TOOL_OPTIONS");
        assertThat(ChartCommand.template(new String[] {"template", "rel", CHART, "--set", "rdb.jvmFlags=-XX:+UseTransparentHugePages"}))
            .as("the RDB's own flags, its container only")
            .containsOnlyOnce("name: JAVA_TOOL_OPTIONS\n              value: \"-XX:+UseTransparentHugePages\"");
        final String set = ChartCommand.template(new String[] {"template", "rel", CHART, "--namespace", "ticks", "--set",
            "networkPolicy.enabled=true,image.registry=registry.example:5000/"});
        assertThat(set).contains("kind: NetworkPolicy", "image: registry.example:5000/jtick/hdb-service:0.1.0-SNAPSHOT");
    }

    @Test
    void shouldRenderTheTickerplantClusterAsAStatefulSetOfItsMembers() {
        final String cluster = ChartCommand.template(new String[] {"template", "rel", CHART, "--namespace", "ticks", "--set",
            "tp.cluster.enabled=true"});
        final String members = "0=rel-jtick-tp-0.rel-jtick-tp-headless.ticks.svc.cluster.local:5010:5011:9010,"
            + "1=rel-jtick-tp-1.rel-jtick-tp-headless.ticks.svc.cluster.local:5010:5011:9010,"
            + "2=rel-jtick-tp-2.rel-jtick-tp-headless.ticks.svc.cluster.local:5010:5011:9010";
        final String addresses = "rel-jtick-tp-0.rel-jtick-tp-headless.ticks.svc.cluster.local:5010,"
            + "rel-jtick-tp-1.rel-jtick-tp-headless.ticks.svc.cluster.local:5010,"
            + "rel-jtick-tp-2.rel-jtick-tp-headless.ticks.svc.cluster.local:5010";
        assertThat(cluster).contains("replicas: 3", "podManagementPolicy: Parallel", "publishNotReadyAddresses: true", "minAvailable: 2",
            "metadata.labels['apps.kubernetes.io/pod-index']", "value: \"" + members + "\"", "medium: Memory", "mountPath: /dev/shm",
            "containerPort: 9014", "protocol: UDP", "requiredDuringSchedulingIgnoredDuringExecution",
            "name: TICK_RDB_TP_ADDRESSES", "name: TICK_FEED_TP_ADDRESSES", "value: \"" + addresses + "\"",
            "name: rel-jtick-dashboard-cluster");
        assertThat(cluster).doesNotContain("maxUnavailable: 0\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: jtick-tp",
            "TICK_RDB_TP_HOST", "TICK_FEED_TP_HOST");
        final String single = ChartCommand.template(new String[] {"template", "rel", CHART});
        assertThat(single).doesNotContain("TICK_TP_CLUSTER_", "_TP_ADDRESSES", "podManagementPolicy", "rel-jtick-dashboard-cluster");
        assertThatThrownBy(() -> ChartCommand.template(new String[] {"template", "rel", CHART, "--set",
            "tp.cluster.enabled=true,tp.cluster.replicas=4"})).hasMessageContaining("tp.cluster.replicas must be odd and at least 3");
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
