/**
 * Historical replay: HDB date partitions streamed in time order (several tables merged by time) to
 * many consumers on the HDB's own port, in the native wire format, one encode shared by the
 * consumers of one stream (docs/wire-format.md "Replay", docs/operations.md "Historical replay").
 */
package io.jtick.core.replay;
