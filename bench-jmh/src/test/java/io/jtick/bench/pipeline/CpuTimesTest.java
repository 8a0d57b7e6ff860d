package io.jtick.bench.pipeline;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CpuTimesTest {
    @Test
    void shouldGroupThreadsByRole() {
        assertThat(CpuTimes.role("tick-client-bench-rdb-2-7-1")).isEqualTo("tick-client-bench-rdb");
        assertThat(CpuTimes.role("tickerplant-3-1")).isEqualTo("tickerplant");
        assertThat(CpuTimes.role("kafka-producer-network-thread | bench-feed")).isEqualTo("kafka-producer-network-thread");
        assertThat(CpuTimes.role("main")).isEqualTo("main");
    }

    @Test
    void shouldChargeTheWorkToTheThreadThatDidIt() throws Exception {
        final CpuTimes start = CpuTimes.now(CpuTimes.Processes.NONE);
        final CountDownLatch burnt = new CountDownLatch(1);
        final CountDownLatch measured = new CountDownLatch(1);
        final Thread busy = new Thread(() -> {
            // burn 50 ms of this thread's own CPU time, however loaded the machine is
            final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            final long until = mx.getCurrentThreadCpuTime() + 50_000_000L;
            while (mx.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
            }
            burnt.countDown();
            try {
                measured.await();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cpu-burner-1");
        busy.start();
        burnt.await();
        // read while the thread is alive: a thread's CPU time is read from live threads
        final Map<String, Double> perUpdate = CpuTimes.now(CpuTimes.Processes.NONE).microsPerUpdateSince(start, 1000);
        measured.countDown();
        busy.join();

        assertThat(perUpdate).containsKey("process").doesNotContainKey("broker");
        assertThat(perUpdate.get("cpu-burner")).as("50 ms over 1000 updates").isGreaterThanOrEqualTo(50.0);
        // the process total comes from /proc in clock ticks (10 ms), the thread's from its own clock in
        // nanoseconds: the total may read up to one tick (10 us per update over 1000 updates) below it
        assertThat(perUpdate.get("process")).isGreaterThanOrEqualTo(perUpdate.get("cpu-burner") - 10.0);
    }

    @Test
    void shouldCountEachOfTheSystemsOwnProcessesAndTheirTotal() throws Exception {
        // two real processes that burn CPU, then wait to be read
        final List<Process> ps = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                ps.add(new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 60").start());
            }
            final CpuTimes.Processes others = new CpuTimes.Processes("node", ps.stream().map(Process::pid).toList());
            final CpuTimes start = CpuTimes.now(others);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // the loop done: each has burnt CPU since the first snapshot (clock ticks of 10 ms)
            while (ps.stream().anyMatch(p -> cpuMillis(p) < 20)) {
                assertThat(System.nanoTime()).as("the processes burn 20 ms of CPU within a minute").isLessThan(deadline);
                Thread.sleep(20);
            }
            final Map<String, Double> perUpdate = CpuTimes.now(others).microsPerUpdateSince(start, 1);

            assertThat(perUpdate).containsKeys("process", "node", "node-1", "node-2", "total");
            assertThat(perUpdate.get("node")).isEqualTo(perUpdate.get("node-1") + perUpdate.get("node-2"), within(1e-6));
            assertThat(perUpdate.get("total")).isEqualTo(perUpdate.get("process") + perUpdate.get("node"), within(1e-6));
            assertThat(perUpdate.get("node-1")).isPositive();
        } finally {
            ps.forEach(Process::destroyForcibly);
            for (final Process p : ps) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void shouldLeaveTheOtherProcessesOutWhenOneHasEnded() throws Exception {
        final Process p = new ProcessBuilder("true").start();
        final CpuTimes.Processes others = new CpuTimes.Processes("broker", List.of(p.pid()));
        final CpuTimes start = CpuTimes.now(others);
        p.waitFor(10, TimeUnit.SECONDS);
        final Map<String, Double> perUpdate = CpuTimes.now(others).microsPerUpdateSince(start, 1);

        assertThat(perUpdate).containsKey("process").doesNotContainKeys("broker", "total");
    }

    private static long cpuMillis(final Process p) {
        return p.info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(0L);
    }
}
