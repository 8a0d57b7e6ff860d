/**
 * The services as an operator runs them, for tests and the soak that kill them: each service jar in
 * its own JVM on loopback ({@link io.jtick.soak.ServiceProcess}), the four of them wired together
 * ({@link io.jtick.soak.ProcessStack}), {@code kill -9} and restart, and the check that every row a
 * numbered feed generated is in the RDB or the HDB exactly once and in order
 * ({@link io.jtick.soak.RowCheck}); {@link io.jtick.soak.Soak} is {@code ./jtick soak}.
 */
package io.jtick.soak;
