/** Who may call a service's REST API: the shared token ({@code tick.api.*}) asked for once a service listens off loopback. */
package io.jtick.boot.access;
