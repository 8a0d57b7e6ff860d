package io.jtick.tp;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantStatus;
import io.jtick.core.cluster.ClusterNode;
import io.jtick.core.cluster.ClusterStatus;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** {@code /api/status}, {@code /api/mode}, {@code /api/eod}, {@code /api/cluster}. */
@RestController
@RequestMapping("/api")
@Tag(name = "tickerplant")
class TpController {
    private static final String STATUS_EXAMPLE = "{\"name\":\"tp\",\"mode\":\"zero-latency\",\"timerMillis\":100,\"date\":\"2026-11-24\","
        + "\"sequence\":120345,\"journalSequence\":120345,\"journalDir\":\"./var/tp/journal\",\"broadcast\":true,"
        + "\"tables\":[{\"name\":\"trade\",\"rows\":1203450,\"updates\":120345}],\"subscribers\":[],\"feeds\":1,"
        + "\"numberedFeeds\":[{\"name\":\"feed-sim\",\"connected\":true,\"journalled\":120345,\"highest\":120345,"
        + "\"acked\":120000,\"updates\":120345,\"duplicates\":0,\"gaps\":0,\"connections\":1}],"
        + "\"errors\":{},\"subscribersDisconnected\":0,\"subscriberAlerts\":0,\"upstream\":null,\"nextEndOfDayNanos\":1795651200000000000}";
    private final TickerplantServer server;
    private final ClusterNode cluster;

    TpController(final TickerplantServer server, final ObjectProvider<ClusterNode> cluster) {
        this.server = server;
        this.cluster = cluster.getIfAvailable();
    }

    @Operation(summary = "This node of a tickerplant cluster: role, leader, term, commit position, members' lag",
        description = "In cluster mode (docs/ha.md): role is leader, follower, candidate or diverged; acceptsFeeds is true on the "
            + "leader once its ingress to the log is connected; members' logPosition and lagBytes behind this node's commit position "
            + "are -1 where this node does not know them. A single tickerplant answers {\"enabled\":false}.")
    @ApiResponse(responseCode = "200", description = "the node's view of the cluster",
        content = @Content(schema = @Schema(implementation = ClusterStatus.class), examples = @ExampleObject(value =
            "{\"enabled\":true,\"memberId\":0,\"role\":\"leader\",\"acceptsFeeds\":true,\"leaderId\":0,"
                + "\"leader\":\"127.0.0.1:5010\",\"term\":2,\"commitPosition\":1048576,\"appliedPosition\":1048576,\"snapshots\":0,"
                + "\"members\":[{\"id\":0,\"address\":\"127.0.0.1:5010\",\"leader\":true,\"logPosition\":1048576,"
                + "\"lagBytes\":0}],\"diverged\":null}")))
    @GetMapping("/cluster")
    ClusterStatus cluster() {
        return cluster == null ? ClusterStatus.disabled() : cluster.status();
    }

    @Operation(summary = "Sequences, mode, tables, subscribers and their backlog",
        description = "sequence is i (kdb .u.i, published), journalSequence j (.u.j, journalled); j - i > 0 between timer ticks in "
            + "timer-publish mode. numberedFeeds: what the journal holds of each numbered feed (protocol 2).")
    @ApiResponse(responseCode = "200", description = "the tickerplant's state",
        content = @Content(schema = @Schema(implementation = TickerplantStatus.class),
            examples = @ExampleObject(value = STATUS_EXAMPLE)))
    @GetMapping("/status")
    TickerplantStatus status() {
        return server.status();
    }

    /** Body: {@code {"mode":"timer-publish","timer":"100ms"}} (timer optional: keeps the current one). */
    @Schema(description = "A publish mode and, for the timer modes, the timer period")
    record ModeRequest(
        @Schema(description = "publish mode", allowableValues = {"zero-latency", "timer-publish", "timer-log-publish"},
            requiredMode = Schema.RequiredMode.REQUIRED) String mode,
        @Schema(description = "timer period (100ms, 1s, PT0.1S); absent keeps the current one", example = "100ms") String timer) {
    }

    /** The mode now in force. */
    record ModeView(@Schema(example = "timer-publish") String mode, @Schema(example = "100") long timerMillis) {
    }

    @Operation(summary = "Switch the publish mode at run time",
        description = "zero-latency journals and publishes each update; timer-publish journals each update and publishes merged "
            + "batches every timer period; timer-log-publish does both on the timer (the white paper's modes).")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
        schema = @Schema(implementation = ModeRequest.class),
        examples = {@ExampleObject(name = "timer-publish", value = "{\"mode\":\"timer-publish\",\"timer\":\"100ms\"}"),
            @ExampleObject(name = "zero-latency", value = "{\"mode\":\"zero-latency\"}")}))
    @ApiResponse(responseCode = "200", description = "the mode now in force",
        content = @Content(schema = @Schema(implementation = ModeView.class),
            examples = @ExampleObject(value = "{\"mode\":\"timer-publish\",\"timerMillis\":100}")))
    @ApiResponse(responseCode = "400", description = "no or unknown mode, bad timer, malformed body",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"bad duration [timer=soon, examples=100ms|1s|PT0.1S]\",\"status\":400}")))
    @PutMapping("/mode")
    ModeView mode(@RequestBody final ModeRequest req) {
        if (req == null || req.mode() == null) {
            throw ApiErrors.badRequest("mode is required [known=zero-latency|timer-publish|timer-log-publish]");
        }
        final PublishMode mode = PublishMode.parse(req.mode());
        final Duration timer = req.timer() == null ? Duration.ofNanos(server.call(t -> t.timerNanos())) : parseDuration(req.timer());
        try {
            server.setMode(mode, timer);
        } catch (final IllegalStateException e) {
            throw new ApiErrors.ApiException(HttpStatus.CONFLICT, e.getMessage());
        }
        return new ModeView(mode.id(), timer.toMillis());
    }

    /** What end of day did. */
    record EndOfDayView(@Schema(description = "the day that ended", example = "2026-11-24") String ended,
                        @Schema(description = "the new day", example = "2026-11-25") String date,
                        @Schema(description = "journal sequence after the roll", example = "120345") long sequence) {
    }

    @Operation(summary = "End of day now (.u.end)",
        description = "Sends end of day to every subscriber (the RDB writes the day's partition) and rolls the journal, as at "
            + "tick.tp.eod-time.")
    @ApiResponse(responseCode = "200", description = "the day ended and the new one",
        content = @Content(schema = @Schema(implementation = EndOfDayView.class),
            examples = @ExampleObject(value = "{\"ended\":\"2026-11-24\",\"date\":\"2026-11-25\",\"sequence\":120345}")))
    @PostMapping("/eod")
    EndOfDayView endOfDay() {
        final String ended = server.call(t -> t.date().toString());
        try {
            server.endOfDay();
        } catch (final IllegalStateException e) {
            throw new ApiErrors.ApiException(HttpStatus.CONFLICT, e.getMessage());
        }
        if (cluster != null) {
            // the end of day was offered to the log: answer once this node has applied it
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (ended.equals(server.call(t -> t.date().toString())) && System.nanoTime() - deadline < 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }
        final TickerplantStatus s = server.status();
        return new EndOfDayView(ended, s.date(), s.journalSequence());
    }

    static Duration parseDuration(final String s) {
        final String v = s.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis((long) (Double.parseDouble(v.substring(0, v.length() - 1).trim()) * 1000));
            }
            if (v.startsWith("p")) {
                return Duration.parse(s.trim());
            }
            return Duration.ofMillis(Long.parseLong(v));
        } catch (final NumberFormatException | DateTimeParseException e) {
            throw ApiErrors.badRequest("bad duration [timer=" + s + ", examples=100ms|1s|PT0.1S]");
        }
    }
}
