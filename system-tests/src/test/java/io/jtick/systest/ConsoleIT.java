package io.jtick.systest;

import io.jtick.core.testing.Closer;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.feedsim.FeedSimApplication;
import io.jtick.hdb.HdbApplication;
import io.jtick.rdb.RdbApplication;
import io.jtick.tp.TpApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.io.File;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static io.jtick.core.testing.TestSupport.await;
import static io.jtick.systest.TickStack.JSON;
import static io.jtick.systest.TickStack.app;
import static io.jtick.systest.TickStack.call;
import static io.jtick.systest.TickStack.ok;
import static io.jtick.systest.TickStack.port;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The web console feed-sim serves at {@code /}, in a real browser (Debian's headless chromium driven by Selenium through
 * chromium-driver) against the four services started here on loopback: the overview shows the tickerplant's sequence
 * moving; a rows-per-update run started from the form finishes and its chart holds one point per matrix entry plus
 * the paper's; a query's table equals the RDB's REST answer; a bad query shows the API's error; every page is usable at
 * 1280 px and at 400 px; after an end of day, the HDB's compression study of that day runs from the Runs view. Every
 * service asks for the API token, reads included: the console asks for it once and
 * sends it on every call. A screenshot of each page is kept under {@code target/surefire-reports/console/}.
 */
@Tag("slow")
@ExtendWith(LeakCheck.class)
// Selenium's HTTP client to chromedriver: its JDK HttpClient threads and the JDK's one CompletableFuture delay thread
@LeakCheck.Options(ignoreThreads = {"HttpClient-\\d+-.*", "CompletableFutureDelayScheduler", "Driver Service Executor.*",
    "UrlChecker-\\d+", "Exec Default Executor", "process reaper.*", "Forwarding .*", "JdkHttpClient-.*",
    "External Process Output Forwarder.*", "Selenium Manager .*"},
    ignoreFiles = {"anon_inode:\\[eventpoll\\]", "anon_inode:\\[eventfd\\]", "pipe:.*"})
class ConsoleIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration RUN_WAIT = Duration.ofSeconds(180);
    private static final Path SHOTS = Path.of("target", "surefire-reports", "console");
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    /** Every service asks for it, reads included: the console must ask once and send it everywhere. */
    private static final String TOKEN = "console-test-token-0123456789abcdef";
    private static final String[] GUARDED = {"--tick.api.token=" + TOKEN, "--tick.api.guard=always", "--tick.api.protect-reads=true"};

    @TempDir
    Path dir;

    private final Closer closer = new Closer();
    private WebDriver browser;
    private ConfigurableApplicationContext tpApp;
    private ConfigurableApplicationContext rdbApp;
    private ConfigurableApplicationContext hdbApp;

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldShowLiveStatusRunAnExperimentAndAnswerQueriesInABrowser() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER)),
            "no " + CHROMIUM + " or " + CHROMEDRIVER + " (Debian: apt-get install chromium chromium-driver; .ci/run installs them)");
        final int console = startServices();
        browser = startBrowser();
        final String base = "http://127.0.0.1:" + console + "/";

        // the API token asked for once, at the first call that needs it; then every view has it
        browser.get(base);
        until("the token dialog", () -> Boolean.TRUE.equals(js("return document.getElementById('token-dialog').open")));
        browser.findElement(By.id("token-input")).sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#token-form button[value=save]")).click();
        until("the token kept", () -> text("token-button").equals("API token: set"));

        // overview: every service UP, the tickerplant's sequence moving
        until("four services UP", () -> ((Number) js("return [...document.querySelectorAll('#health .badge')]"
            + ".filter(b => b.textContent === 'UP').length")).intValue() == 4);
        until("a sequence on the overview", () -> sequence() > 0);
        final long first = sequence();
        until("the sequence moving past " + first, () -> sequence() > first);
        shot("overview");

        // runs: a rows-per-update run of two entries from the form, to its chart and table
        browser.get(base + "#runs");
        until("the experiments in the form", () -> browser.findElements(By.cssSelector("#run-experiment option")).size() >= 9);
        new Select(browser.findElement(By.id("run-experiment"))).selectByValue("rows-per-update");
        final WebElement duration = browser.findElement(By.id("run-duration"));
        duration.clear();
        duration.sendKeys("1");
        final WebElement matrix = browser.findElement(By.id("run-matrix"));
        matrix.clear();
        matrix.sendKeys("{\"r\":1,\"u\":10,\"t\":1}\n{\"r\":100,\"u\":1,\"t\":10}");
        browser.findElement(By.id("run-start")).click();
        until("the run page", () -> browser.getCurrentUrl().contains("#runs/"));
        final String runId = browser.getCurrentUrl().replaceAll(".*#runs/", "");
        await("the run done", RUN_WAIT, () -> text("run-status").startsWith("done"));
        final JsonNode run = ok(console, "GET", "/api/runs/" + runId, null, TOKEN);
        assertThat(run.get("rows").size()).isEqualTo(2);
        until("the chart drawn", () -> Boolean.TRUE.equals(js("return !!echarts.getInstanceByDom(document.getElementById('run-chart'))")));
        @SuppressWarnings("unchecked")
        final Map<String, Object> points = (Map<String, Object>) js("const o = echarts.getInstanceByDom("
            + "document.getElementById('run-chart')).getOption(); const m = {}; for (const s of o.series) "
            + "{ m[s.id] = s.data.filter(v => v !== null).length; } return m;");
        // one point per matrix entry that measured the figure (on a busy machine an entry may hold no value of one), and one
        // per entry the paper has a figure for
        long paperPoints = 0;
        long fullFigures = 0;
        for (final String figure : List.of("tplog", "tppub", "tpupd", "tpflush", "rdbrecv", "rdbupd")) {
            long ours = 0;
            for (final JsonNode row : run.get("rows")) {
                ours += row.path("figures").path(figure).path("median").asDouble(0) > 0 ? 1 : 0;
            }
            assertThat(points.getOrDefault("jtick:" + figure, 0L)).as("jtick %s points %s", figure, points).isEqualTo(ours);
            fullFigures += ours == 2 ? 1 : 0;
            long paper = 0;
            for (final JsonNode row : run.get("rows")) {
                final JsonNode p = row.path("paper");
                // the SVG's pairing: our tpflush has no paper figure, our rdbrecv is the paper's rdbrecv(_first)
                paper += !"tpflush".equals(figure) && (p.has(figure) || "rdbrecv".equals(figure) && p.has("rdbrecv_first")) ? 1 : 0;
            }
            if (paper == 0) {
                assertThat(points).as("no paper series for %s", figure).doesNotContainKey("paper:" + figure);
            } else {
                assertThat(points.get("paper:" + figure)).as("paper %s points %s", figure, points).isEqualTo(paper);
            }
            paperPoints += paper;
        }
        assertThat(paperPoints).as("the paper's points on the chart").isGreaterThanOrEqualTo(6);
        assertThat(fullFigures).as("figures with a point for each of the two entries").isGreaterThanOrEqualTo(4);
        assertThat(browser.findElements(By.cssSelector("#run-result tbody tr"))).hasSize(2);
        // rdbrecv (zero latency) runs well above the paper's figure here: at least one cell is marked
        assertThat(browser.findElements(By.cssSelector("#run-result td.above"))).isNotEmpty();
        shot("run");

        // compare: a second run of one entry (started over REST) beside the first, entry by entry
        final String second = "{\"experiment\":\"rows-per-update\",\"durationSeconds\":1,\"matrix\":[{\"r\":1,\"u\":10,\"t\":1}]}";
        final String secondId = JSON.readTree(call(console, "POST", "/api/runs", second, "application/json", TOKEN).body()).get("id")
            .asString();
        await("the second run done", RUN_WAIT,
            () -> !"running".equals(ok(console, "GET", "/api/runs/" + secondId, null, TOKEN).get("status").asString()));
        browser.get(base + "#runs");
        browser.get(base + "#runs/" + runId);
        until("the second run offered to compare",
            () -> browser.findElements(By.cssSelector("#run-compare option[value='" + secondId + "']")).size() == 1);
        new Select(browser.findElement(By.id("run-compare"))).selectByValue(secondId);
        // two entries of the first run × six figures; the second run has only the first entry
        until("the comparison", () -> browser.findElements(By.cssSelector("#run-compare-table tbody tr")).size() == 12);
        assertThat(browser.findElements(By.cssSelector("#run-compare-table tbody tr")).get(0).getText()).startsWith("1/10/1 1/10/1 tplog");

        // query: the table equals the RDB's own answer (the run stopped the feed: the rows hold still)
        final int rdb = port(rdbApp);
        final String q = "{\"table\":\"trade\",\"where\":{\"sym\":\"S0001\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"],"
            + "\"limit\":25}";
        final JsonNode rest = JSON.readTree(call(rdb, "POST", "/api/query", q, "application/json", TOKEN).body());
        assertThat(rest.get("rows").size()).isPositive();
        browser.get(base + "#query");
        query("rdb", q);
        until("the answer's table", () -> browser.findElements(By.cssSelector("#query-result tbody tr")).size() == rest.get("rows").size());
        final List<String> headers = new ArrayList<>();
        browser.findElements(By.cssSelector("#query-result thead th")).forEach(th -> headers.add(th.getText()));
        final List<String> columns = new ArrayList<>();
        rest.get("columns").forEach(c -> columns.add(c.asString()));
        assertThat(headers).isEqualTo(columns);
        final List<WebElement> rows = browser.findElements(By.cssSelector("#query-result tbody tr"));
        for (int i = 0; i < rows.size(); i++) {
            final List<WebElement> cells = rows.get(i).findElements(By.tagName("td"));
            for (int c = 0; c < columns.size(); c++) {
                assertThat(JSON.readTree(cells.get(c).getAttribute("data-value"))).as("row %d %s", i, columns.get(c))
                    .isEqualTo(rest.get("rows").get(i).get(c));
            }
        }
        // the same rows asked in SQL: the table equals the RDB's POST /api/sql answer
        final String sql = "SELECT time, sym, price, size, cond FROM trade WHERE sym = 'S0001' LIMIT 25";
        final JsonNode restSql = JSON.readTree(call(rdb, "POST", "/api/sql", sql, "text/plain", TOKEN).body());
        assertThat(restSql.get("rows")).isEqualTo(rest.get("rows"));
        new Select(browser.findElement(By.id("query-language"))).selectByValue("sql");
        query("rdb", "SELECT 1 FROM nope");
        until("the SQL error shown", () -> browser.findElement(By.id("query-error")).isDisplayed());
        assertThat(text("query-error")).startsWith("Error 400: ").contains("nope");
        query("rdb", sql);
        until("the SQL answer's table", () -> !browser.findElement(By.id("query-error")).isDisplayed()
            && browser.findElements(By.cssSelector("#query-result tbody tr")).size() == restSql.get("rows").size());
        final List<WebElement> sqlRows = browser.findElements(By.cssSelector("#query-result tbody tr"));
        for (int i = 0; i < sqlRows.size(); i++) {
            final List<WebElement> cells = sqlRows.get(i).findElements(By.tagName("td"));
            for (int c = 0; c < columns.size(); c++) {
                assertThat(JSON.readTree(cells.get(c).getAttribute("data-value"))).as("SQL row %d %s", i, columns.get(c))
                    .isEqualTo(restSql.get("rows").get(i).get(c));
            }
        }
        new Select(browser.findElement(By.id("query-language"))).selectByValue("json");

        // a time-bucketed answer plots as candlesticks
        query("rdb", "{\"table\":\"trade\",\"where\":{\"sym\":\"S0001\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":"
            + "\"price\"},\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"}},\"by\":{\"time\":{\"xbar\":[\"1s\",\"time\"]}}}");
        until("a candlestick plot", () -> "candlestick".equals(js("const c = echarts.getInstanceByDom(document.getElementById("
            + "'query-chart')); return c && !document.getElementById('query-chart').hidden ? c.getOption().series[0].type : null")));
        shot("query");

        // a bad query shows the API's own words
        final String bad = "{\"table\":\"trade\",\"select\":[\"pirce\"]}";
        final HttpResponse<String> refused = call(rdb, "POST", "/api/query", bad, "application/json", TOKEN);
        assertThat(refused.statusCode()).isEqualTo(400);
        final String words = JSON.readTree(refused.body()).get("error").asString();
        query("rdb", bad);
        until("the error shown", () -> browser.findElement(By.id("query-error")).isDisplayed());
        assertThat(text("query-error")).isEqualTo("Error 400: " + words);
        assertThat(browser.findElements(By.cssSelector("#query-result tbody tr"))).isEmpty();
        shot("query-error");

        // end of day: the day moves to the HDB, whose compression study runs from the Runs view
        ok(port(tpApp), "POST", "/api/eod", null, TOKEN);
        await("the day in the HDB", WAIT, () -> ok(port(hdbApp), "GET", "/api/status", null, TOKEN).get("partitions").asInt() == 1);
        final String day = ok(port(hdbApp), "GET", "/api/partitions", null, TOKEN).get(0).get("date").asString();
        browser.get(base + "#runs");
        until("the day offered to the study",
            () -> browser.findElements(By.cssSelector("#study-date option[value='" + day + "']")).size() == 1);
        final WebElement encodings = browser.findElement(By.id("study-encodings"));
        encodings.clear();
        encodings.sendKeys("lz4, zstd:1");
        browser.findElement(By.id("study-start")).click();
        await("the study's tables", RUN_WAIT, () -> !browser.findElements(By.cssSelector("#study-columns-table tbody tr")).isEmpty());
        assertThat(text("study-status")).startsWith("trade of " + day);
        @SuppressWarnings("unchecked")
        final List<String> bars = (List<String>) js("return echarts.getInstanceByDom(document.getElementById('study-chart')).getOption()"
            + ".series.map(s => s.id)");
        assertThat(bars).contains("enc:lz4", "enc:zstd:1");
        shot("study");

        // a narrow window: nothing wider than the window, the pages still there
        browser.manage().window().setSize(new Dimension(400, 900));
        for (final String page : List.of("overview", "runs/" + runId, "query")) {
            browser.get(base + "#" + page);
            until(page + " shown", () -> browser.findElement(By.id("page-" + page.replaceAll("/.*", ""))).isDisplayed());
            until(page + " fits 400 px", () -> Boolean.TRUE.equals(js("return document.documentElement.scrollWidth <= window.innerWidth")));
            shot("narrow-" + page.replaceAll("/.*", ""));
        }
    }

    /** TP, HDB, RDB and feed-sim (its feed running, its console pointed at the other three); feed-sim's port. */
    private int startServices() throws Exception {
        final Path journal = dir.resolve("journal");
        final Path hdbRoot = Files.createDirectories(dir.resolve("hdb"));
        tpApp = closer.track(app(TpApplication.class, "tp-service", guarded("--tick.tp.port=0",
            "--tick.tp.kdb-port=0", "--tick.tp.journal-dir=" + journal, "--tick.tp.zone=UTC",
            "--tick.tp.eod-time=" + LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0))));
        final int tpFeedPort = tpApp.getBean(TickerplantServer.class).port();
        hdbApp = closer.track(app(HdbApplication.class, "hdb-service",
            guarded("--tick.hdb.root=" + hdbRoot, "--tick.hdb.tiering.enabled=false")));
        rdbApp = closer.track(app(RdbApplication.class, "rdb-service", guarded("--tick.rdb.tp-port=" + tpFeedPort,
            "--tick.rdb.reconnect-delay=100ms", "--tick.rdb.hdb.root=" + hdbRoot, "--tick.rdb.hdb.url=http://127.0.0.1:" + port(hdbApp),
            "--tick.rdb.journal-root=" + journal)));
        await("RDB subscribed", WAIT, () -> ok(port(rdbApp), "GET", "/api/status", null, TOKEN).get("subscribed").asBoolean());
        final Path paper = Path.of(System.getProperty("jtick.shared.data", "../shared/data")).resolveSibling("reference")
            .resolve("kx-tick-profiling.csv");
        final ConfigurableApplicationContext feed = closer.track(app(FeedSimApplication.class, "feed-sim", guarded(
            "--tick.feed.tp-port=" + tpFeedPort, "--tick.feed.autostart=true", "--tick.feed.runs-dir=" + dir.resolve("runs"),
            "--tick.feed.lab-dir=" + dir.resolve("lab"), "--tick.feed.paper-figures=" + paper, "--tick.feed.jit-warmup=200ms",
            "--tick.console.tp-url=http://127.0.0.1:" + port(tpApp), "--tick.console.rdb-url=http://127.0.0.1:" + port(rdbApp),
            "--tick.console.hdb-url=http://127.0.0.1:" + port(hdbApp))));
        return port(feed);
    }

    private static String[] guarded(final String... args) {
        final List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(GUARDED));
        return all.toArray(new String[0]);
    }

    private WebDriver startBrowser() throws Exception {
        Files.createDirectories(SHOTS);
        final ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
            .usingAnyFreePort().build();
        final ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM)
            .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium")));
        final ChromeDriver driver = new ChromeDriver(service, options);
        closer.track(() -> {
            driver.quit();
            service.close();
        });
        return driver;
    }

    private void query(final String target, final String document) {
        new Select(browser.findElement(By.id("query-target"))).selectByValue(target);
        // the text goes in whole (typing it would be slow and auto-indent nothing, but it is the same value)
        ((JavascriptExecutor) browser).executeScript("document.getElementById('query-text').value = arguments[0];", document);
        browser.findElement(By.id("query-run")).click();
    }

    private long sequence() {
        final Object v = js("const e = document.getElementById('tp-sequence'); return e ? Number(e.dataset.value) : 0");
        return ((Number) v).longValue();
    }

    private Object js(final String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private String text(final String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private void until(final String what, final BooleanSupplier condition) {
        await(what, WAIT, condition);
    }

    /** The page as it is now, whole (the window grown to the page's height for the shot). */
    private void shot(final String name) throws Exception {
        final Dimension size = browser.manage().window().getSize();
        final Number height = (Number) js("return Math.ceil(document.documentElement.scrollHeight)");
        browser.manage().window().setSize(new Dimension(size.getWidth(), Math.max(size.getHeight(), height.intValue() + 140)));
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        browser.manage().window().setSize(size);
    }
}
