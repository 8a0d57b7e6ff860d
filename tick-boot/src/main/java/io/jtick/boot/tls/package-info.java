/**
 * TLS of every service ({@code tick.tls.*}, docs/operations.md "TLS"): the settings record, the core
 * {@link io.jtick.core.tls.TlsSettings} and the JDK context the services' HTTP clients use, and the one mapping of
 * the same files onto Spring Boot's SSL bundle {@code tick} that the REST port serves.
 */
package io.jtick.boot.tls;
