/** Writing date partitions ({@code .Q.dpft}): sym-then-time order, block cuts, column files, encoding policy, writer threads. */
package io.jtick.core.hdb.write;
