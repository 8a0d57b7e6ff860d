package io.jtick.feedsim;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.core.feed.FeedRequest;
import io.jtick.core.feed.FeedSupervisor;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/feed/start} (400 on bad parameters, 409 while a feed runs), {@code POST /api/feed/stop},
 * {@code GET /api/feed}: the body is a {@link FeedRequest}, the answer the {@link FeedSupervisor.Status}.
 */
@RestController
@RequestMapping("/api/feed")
@Tag(name = "feed")
class FeedController {
    private static final String PARAMETERS = "\"parameters\":{\"source\":\"synthetic\",\"table\":\"trade\",\"r\":10,\"u\":1,\"t\":1,"
        + "\"syms\":100,\"ex\":0,\"seed\":42,\"stampTime\":false,\"pace\":\"timer\",\"durationSeconds\":0,\"maxRows\":0}";
    private static final String RUNNING_EXAMPLE = "{\"running\":true,\"state\":\"running\",\"stopReason\":null,\"tp\":"
        + "\"127.0.0.1:5010\"," + PARAMETERS + ",\"rowsSent\":5420,\"updatesSent\":542,\"bytesSent\":245736,\"rowsPerSecond\":"
        + "10001.0,\"elapsedMillis\":541,\"backPressureWaits\":0,\"behindScheduleMillis\":0,\"maxBehindScheduleMillis\":33,"
        + "\"tpErrors\":0,\"connectAttempts\":1,\"lastError\":null}";
    private static final String STOPPED_EXAMPLE = "{\"running\":false,\"state\":\"stopped\",\"stopReason\":\"stop requested\","
        + "\"tp\":\"127.0.0.1:5010\"," + PARAMETERS + ",\"rowsSent\":5900,\"updatesSent\":590,\"bytesSent\":267462,"
        + "\"rowsPerSecond\":10002.7,\"elapsedMillis\":589,\"backPressureWaits\":0,\"behindScheduleMillis\":0,"
        + "\"maxBehindScheduleMillis\":33,\"tpErrors\":0,\"connectAttempts\":1,\"lastError\":null}";
    private final FeedSupervisor feeds;

    FeedController(final FeedSupervisor feeds) {
        this.feeds = feeds;
    }

    @Operation(summary = "Start the feed: synthetic (the white paper's knobs), a replay of real data (taq, algoseek, lobster), "
        + "or a past day from the HDB (hdb)",
        description = "Every field is optional and defaults to tick.feed.*: source, table, r (rows per update), u (updates per "
            + "tick), t (timer ms), syms, ex (extra float columns), seed, stampTime, durationSeconds, maxRows; replays: file, "
            + "symbols, dates, pace (timer, recorded, max) and speed; hdb (the HDB's replay port, tick.feed.hdb-host and "
            + "hdb-replay-port): from, to (yyyy-MM-dd), tables, symbols, pace (recorded with speed, or max), r (rows per frame).")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "application/json",
        schema = @Schema(implementation = FeedRequest.class), examples = @ExampleObject(name = "synthetic-10-rows-per-ms",
            value = "{\"table\":\"trade\",\"r\":10,\"u\":1,\"t\":1,\"syms\":100}")))
    @ApiResponse(responseCode = "200", description = "the feed, starting", content = @Content(
        schema = @Schema(implementation = FeedSupervisor.Status.class), examples = @ExampleObject(value = RUNNING_EXAMPLE)))
    @ApiResponse(responseCode = "400", description = "a bad parameter, named", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"r (rows per update) must be 1..1000000 [r=0]\",\"status\":400}")))
    @ApiResponse(responseCode = "409", description = "a feed is already running", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"a feed is already running; POST /api/feed/stop first [state=running]\",\"status\":409}")))
    @PostMapping("/start")
    FeedSupervisor.Status start(@RequestBody(required = false) final FeedRequest request) {
        try {
            return feeds.start(request == null ? FeedRequest.defaults() : request);
        } catch (final FeedSupervisor.AlreadyRunning e) {
            throw new ApiException(HttpStatus.CONFLICT, "a feed is already running; POST /api/feed/stop first [state=" + e.state() + "]");
        }
    }

    @Operation(summary = "Stop the feed (nothing running: answers the last status)")
    @ApiResponse(responseCode = "200", description = "the feed as it stopped", content = @Content(
        schema = @Schema(implementation = FeedSupervisor.Status.class), examples = @ExampleObject(value = STOPPED_EXAMPLE)))
    @PostMapping("/stop")
    FeedSupervisor.Status stop() {
        return feeds.stop();
    }

    @Operation(summary = "The feed: state, parameters, rows, updates and bytes sent, rate, back-pressure, TP errors")
    @ApiResponse(responseCode = "200", description = "the feed's status", content = @Content(
        schema = @Schema(implementation = FeedSupervisor.Status.class), examples = @ExampleObject(value = RUNNING_EXAMPLE)))
    @GetMapping
    FeedSupervisor.Status status() {
        return feeds.status();
    }
}
