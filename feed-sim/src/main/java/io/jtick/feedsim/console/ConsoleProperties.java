package io.jtick.feedsim.console;

import io.jtick.boot.PropertyChecks;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * The web console's settings ({@code tick.console.*}, docs/configuration.md): where the services it shows are, as this
 * feed-sim reaches them (the browser reaches them through feed-sim's pass-through, so only feed-sim needs the URLs).
 *
 * @param tpUrl   tp-service's HTTP base URL
 * @param rdbUrl  rdb-service's HTTP base URL
 * @param hdbUrl  hdb-service's HTTP base URL (its gateway too)
 * @param timeout longest a forwarded call may take, answer included (a query's rows stream within it)
 */
@ConfigurationProperties("tick.console")
record ConsoleProperties(
    @DefaultValue("http://127.0.0.1:8010") String tpUrl,
    @DefaultValue("http://127.0.0.1:8011") String rdbUrl,
    @DefaultValue("http://127.0.0.1:8012") String hdbUrl,
    @DefaultValue("30s") Duration timeout) {

    /** A bad value stops start-up naming its key. */
    ConsoleProperties {
        PropertyChecks.matches("tick.console.tp-url", tpUrl, "https?://.+");
        PropertyChecks.matches("tick.console.rdb-url", rdbUrl, "https?://.+");
        PropertyChecks.matches("tick.console.hdb-url", hdbUrl, "https?://.+");
        PropertyChecks.present("tick.console.timeout", timeout);
    }

    /** The base URL of {@code service} (tp, rdb, hdb), without a trailing slash; null for any other name. */
    String baseUrl(final String service) {
        final String url;
        switch (service) {
            case "tp":
                url = tpUrl;
                break;
            case "rdb":
                url = rdbUrl;
                break;
            case "hdb":
                url = hdbUrl;
                break;
            default:
                return null;
        }
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
