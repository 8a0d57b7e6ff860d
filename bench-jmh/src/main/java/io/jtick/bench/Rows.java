package io.jtick.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Rows per second reported next to a benchmark's updates/s (or inserts/s) score. */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class Rows {
    public long rows;

    @Setup(Level.Iteration)
    public void reset() {
        rows = 0;
    }
}
