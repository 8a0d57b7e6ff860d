/** The gateway (TorQ's): one query over the HDB's partitions and today's RDB, in this process or over REST. */
package io.jtick.core.gateway;
