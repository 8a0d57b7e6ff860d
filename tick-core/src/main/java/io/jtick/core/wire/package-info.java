/**
 * The jtick wire format (docs/wire-format.md): length-prefixed, little-endian, versioned frames, with
 * flyweight encoders and decoders over Netty buffers. The bytes a feed sends are the bytes the TP
 * journals and the bytes subscribers receive.
 */
package io.jtick.core.wire;
