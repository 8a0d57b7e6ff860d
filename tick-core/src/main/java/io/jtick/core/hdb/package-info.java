/** Historical database: date-partitioned, sym-sorted column files with per-column transforms, codecs, block index and checksums. */
package io.jtick.core.hdb;
