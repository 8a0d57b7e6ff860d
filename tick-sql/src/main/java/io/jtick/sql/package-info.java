/**
 * SQL over the one query engine: {@link io.jtick.sql.SqlCompiler} turns a SELECT (parsed by
 * JSqlParser) into the engine's query document, {@link io.jtick.sql.SqlRunner} prepares and runs it,
 * and every refusal is a {@link io.jtick.sql.SqlException} with a PostgreSQL SQLSTATE.
 */
package io.jtick.sql;
