/**
 * The kdb+ IPC port of the RDB and HDB: q clients' queries answered through the q front end
 * (tick-core's kdb+ codec, handshake and logins).
 */
package io.jtick.sql.kdb;
