/** The HDB root on disk: date and table directories, staging published by atomic rename or swap, fsync, crash recovery. */
package io.jtick.core.hdb.store;
