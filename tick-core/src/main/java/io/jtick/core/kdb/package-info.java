/**
 * The kdb+ IPC protocol at the tickerplant's edge (docs/kdb-ipc.md): handshake and message framing
 * ({@link io.jtick.core.kdb.KdbFrameDecoder}), IPC compression, a bounds-checked reader of kdb+
 * objects, the conversion of a kdb+ {@code .u.upd} into the native UPDATE frame and of an UPDATE
 * frame into the {@code (`upd;`t;table)} message kdb+ subscribers receive, and the login check.
 */
package io.jtick.core.kdb;
