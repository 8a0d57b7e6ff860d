/** Reading the HDB: a root's partitions by date, reloaded and swapped under running queries, and the engine's source. */
package io.jtick.core.hdb.read;
