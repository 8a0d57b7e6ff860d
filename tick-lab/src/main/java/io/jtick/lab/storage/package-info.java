/**
 * Storage operations the studies time outside any service: dropping files from the page cache for cold reads,
 * single column-file operations for io.q.
 */
package io.jtick.lab.storage;
