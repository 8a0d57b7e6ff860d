/** The HDB's cold tier on S3-compatible object storage: publish by manifest, ranged reads through a bounded cache. */
package io.jtick.objectstore;
