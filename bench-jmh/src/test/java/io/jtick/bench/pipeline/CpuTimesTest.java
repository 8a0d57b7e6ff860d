package io.jtick.bench.pipeline;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

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
        final CpuTimes start = CpuTimes.now(0);
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
        final Map<String, Double> perUpdate = CpuTimes.now(0).microsPerUpdateSince(start, 1000);
        measured.countDown();
        busy.join();

        assertThat(perUpdate).containsKey("process").doesNotContainKey("broker");
        assertThat(perUpdate.get("cpu-burner")).as("50 ms over 1000 updates").isGreaterThanOrEqualTo(50.0);
        // the process total comes from /proc in clock ticks (10 ms), the thread's from its own clock in
        // nanoseconds: the total may read up to one tick (10 us per update over 1000 updates) below it
        assertThat(perUpdate.get("process")).isGreaterThanOrEqualTo(perUpdate.get("cpu-burner") - 10.0);
    }
}
