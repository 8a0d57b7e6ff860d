/** The HDB's storage format: column files, codecs, transforms, block decoding and its cache, table meta, sym ranges, a table opened. */
package io.jtick.core.hdb.format;
