/**
 * The PostgreSQL wire protocol (v3) over the SQL front end: {@link io.jtick.sql.pg.PgServer} (Netty,
 * its own port), one {@code PgConnection} per client (start-up, authentication with the API token,
 * simple and extended query, cancel), results streamed as DataRow batches paced by the socket.
 */
package io.jtick.sql.pg;
