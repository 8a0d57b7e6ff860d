/**
 * The replicated tickerplant (docs/ha.md): tickerplant nodes that agree on one log through Aeron
 * Cluster ({@link io.jtick.core.cluster.ClusterNode}), each journalling and publishing what the log
 * commits, in log order.
 */
package io.jtick.core.cluster;
