/**
 * TLS on every port and client: one {@link io.jtick.core.tls.TlsSettings} per service ({@code tick.tls.*}), the Netty
 * contexts built from it ({@link io.jtick.core.tls.TlsContexts}), a listener's TLS front ({@link io.jtick.core.tls.TlsListener}:
 * required, optional by sniffing the first bytes, failures counted) and a client's ({@link io.jtick.core.tls.TlsClient}:
 * the server's name verified).
 */
package io.jtick.core.tls;
