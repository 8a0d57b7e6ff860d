package io.jtick.lab.run;

/**
 * CPU use while measuring, each in percent of one core (the paper's tpcpu/rdbcpu unit): thread CPU
 * time ({@code ThreadMXBean.getThreadCpuTime}) of a role's threads divided by wall time.
 *
 * @param tp             the tickerplant thread (it runs every feed and subscriber connection)
 * @param rdb            the first subscriber's thread
 * @param rdbLast        the last subscriber's thread
 * @param rdbAll         all subscriber threads together
 * @param feed           the feed's runner thread and its connection's thread
 * @param sampler        the measuring thread itself (window snapshots, CPU sampling, settle checks)
 * @param tpTiming       estimated share of {@code tp} that is the timing code: values recorded × cost of one
 * @param rdbTiming      the same for the first subscriber
 * @param timingNanos    measured cost of one timing (two {@code System.nanoTime()} and a histogram record), ns
 * @param tpCpuWait      mean µs the tickerplant thread waited for a CPU each time it was given one (Linux
 *                       schedstat run-queue wait / times scheduled); null where unknown
 * @param rdbCpuWait     the same for the first subscriber's thread
 */
public record CpuUsage(double tp, double rdb, double rdbLast, double rdbAll, double feed, double sampler, double tpTiming,
                       double rdbTiming, double timingNanos, Double tpCpuWait, Double rdbCpuWait) {
}
