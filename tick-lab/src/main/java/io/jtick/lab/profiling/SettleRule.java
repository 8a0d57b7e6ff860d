package io.jtick.lab.profiling;

import io.jtick.lab.run.Window;
import java.util.List;

/**
 * When medians count as settled: the last {@code windows} windows each hold at least
 * {@code minSamples} values of every watched figure, and for each figure the spread of those
 * window medians (max − min) is within {@code tolerance} of their mean or within
 * {@code floorMicros} (medians of a few µs move by a µs between windows without meaning anything).
 *
 * @param windows     consecutive windows compared
 * @param tolerance   relative spread allowed, e.g. 0.10
 * @param floorMicros absolute spread always allowed, µs
 * @param minSamples  values a window needs to count
 */
public record SettleRule(int windows, double tolerance, double floorMicros, long minSamples) {
    /** 3 windows within 10% (or 1 µs), at least 5 values each. */
    public static final SettleRule DEFAULT = new SettleRule(3, 0.10, 1.0, 5);

    /** Describes the rule for reports. */
    public String describe(final long windowMillis) {
        return "settled when the medians of tpupd and of the first subscriber's rdbrecv over the last " + windows + " windows of "
            + windowMillis + " ms (longer for slow feeds: at least 20 feed or timer periods) differ by at most "
            + Math.round(tolerance * 100) + "% of their mean or " + floorMicros + " us, each window holding at least " + minSamples
            + " values; measuring runs at least the minimum, at most durationSeconds, after a warm-up that no figure includes";
    }

    /** True when the last windows of {@code history} meet the rule for both watched figures. */
    public boolean settled(final List<Window> history) {
        if (history.size() < windows) {
            return false;
        }
        final List<Window> last = history.subList(history.size() - windows, history.size());
        for (final Window w : last) {
            if (w.updates() < minSamples || w.received() < minSamples || w.tpupd() == null || w.rdbrecv() == null) {
                return false;
            }
        }
        return steady(last, true) && steady(last, false);
    }

    private boolean steady(final List<Window> last, final boolean tp) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        double sum = 0;
        for (final Window w : last) {
            final double v = tp ? w.tpupd() : w.rdbrecv();
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
        }
        final double spread = max - min;
        return spread <= floorMicros || spread <= tolerance * (sum / last.size());
    }
}
