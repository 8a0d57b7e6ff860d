package io.jtick.tp;

import io.jtick.boot.TickMetricsBinder;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.cluster.ClusterNode;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.sql.kdb.QTextCall;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import io.jtick.core.time.NanoClock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;

/** Properties record → core settings → a started tickerplant (Aeron's MediaDriver.main shape). */
@Configuration(proxyBeanMethods = false)
class TpConfiguration {
    @Bean
    TickMetrics tickMetrics() {
        return new TickMetrics();
    }

    /** Cluster mode ({@code tick.tp.cluster.enabled}): this node of the cluster, started with the tickerplant below. */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "tick.tp.cluster.enabled", havingValue = "true")
    ClusterNode clusterNode(final TpProperties props, final TickMetrics metrics) {
        return new ClusterNode(props.cluster().toSettings(), props.toSettings(), metrics);
    }

    /**
     * Started here, not in a lifecycle callback, so its meters exist before Micrometer binds them. In
     * cluster mode the node joins the cluster once the tickerplant listens, and start waits for a leader.
     */
    @Bean(destroyMethod = "close")
    TickerplantServer tickerplantServer(final TpProperties props, final TickMetrics metrics, final AccessSettings access,
                                        final TlsSettings tls, final ObjectProvider<ClusterNode> cluster) throws IOException {
        final ClusterNode node = cluster.getIfAvailable();
        final TickerplantServer server = new TickerplantServer(props.toSettings(), props.schemas(), NanoClock.SYSTEM, metrics)
            .access(access).tls(tls).kdb(props.kdbSettings(access)).kdbText(new QTextCall()).idleSpin(props.idleSpin())
            .unixSocket(props.unixSocket());
        if (node != null) {
            server.replicated(node);
        }
        server.start();
        if (node != null) {
            try {
                node.start(server);
            } catch (final RuntimeException e) {
                server.close();
                throw e;
            }
        }
        return server;
    }

    @Bean
    TickMetricsBinder tickMetricsBinder(final TickMetrics metrics, final TickerplantServer server) {
        return new TickMetricsBinder(metrics);
    }
}
