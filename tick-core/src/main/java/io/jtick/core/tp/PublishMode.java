package io.jtick.core.tp;

/** When the tickerplant journals and publishes (the white paper's publish-frequency experiment). */
public enum PublishMode {
    /** Journal and publish each update as it arrives. */
    ZERO_LATENCY("zero-latency"),
    /** Journal each update as it arrives; publish merged batches every timer tick. */
    TIMER_PUBLISH("timer-publish"),
    /** Buffer updates; journal them and publish merged batches every timer tick. */
    TIMER_LOG_PUBLISH("timer-log-publish");

    private final String id;

    PublishMode(final String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static PublishMode parse(final String s) {
        for (final PublishMode m : values()) {
            if (m.id.equalsIgnoreCase(s) || m.name().equalsIgnoreCase(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown publish mode [mode=" + s + ", known=zero-latency|timer-publish|timer-log-publish]");
    }
}
