/**
 * Historical database service. A placeholder until the HDB issue: it serves only the list of dated
 * partition directories under {@code tick.hdb.root}; the on-disk store, query REST, replay stream
 * and compression/tier jobs are not implemented yet.
 */
package io.jtick.hdb;
