/** The HDB's storage format: column files, transforms, codecs, block decoding and its cache, table meta, sym ranges, checksums. */
package io.jtick.core.hdb.format;
