/** Operations on stored partitions: tiering by age and partition archives (a day's tables as one zip stream, installed atomically). */
package io.jtick.core.hdb.ops;
