package io.jtick.lab.run;

/**
 * One figure of a seed script's experiment ({@code throughput}: KX's throughput.q, {@code io}: KX's
 * io.q), ours beside KX's published one in the same unit.
 *
 * @param section        the group KX prints it under ({@code local file}, {@code local comm}, ...)
 * @param name           what was measured, named as KX names it where it has a counterpart
 * @param unit           {@code M rows/s}, {@code ms} or {@code MB/s}
 * @param value          ours: the median of the repeats
 * @param repeats        timed repeats the median is over
 * @param operations     operations (or rows, or bytes for MB/s) timed in one repeat
 * @param higherIsBetter true for rates, false for times
 * @param kx             KX's figure in the same unit, or null when KX publishes none
 * @param kxSource       which KX machine and script the figure comes from
 * @param ratio          ours / KX (null without a KX figure): above 1 is better for a rate, below 1 for a time
 * @param method         what ours times, in jtick's terms (and where it differs from what KX timed)
 */
public record Measure(String section, String name, String unit, double value, int repeats, long operations, boolean higherIsBetter,
                      Double kx, String kxSource, Double ratio, String method) {
    /** Ours with KX's figure attached and the ratio worked out. */
    public Measure withKx(final Double figure, final String source) {
        final Double r = figure == null || figure <= 0 || value <= 0 ? null : Math.round(value / figure * 1000) / 1000.0;
        return new Measure(section, name, unit, value, repeats, operations, higherIsBetter, figure, source, r, method);
    }

    /** How many times better than KX (ratio for a rate, its inverse for a time), null without a KX figure. */
    public Double timesBetter() {
        if (ratio == null || ratio <= 0) {
            return null;
        }
        return higherIsBetter ? ratio : 1 / ratio;
    }
}
