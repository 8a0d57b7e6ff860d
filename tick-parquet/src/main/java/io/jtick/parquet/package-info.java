/** Apache Parquet as an HDB table format (parquet-java): schema mapping, the writer, the reader, export and import of Parquet days. */
package io.jtick.parquet;
