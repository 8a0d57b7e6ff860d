package io.jtick.tp;

import io.jtick.boot.ApiErrors;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;

/** {@code /api/status}, {@code /api/mode}, {@code /api/eod}. */
@RestController
@RequestMapping("/api")
class TpController {
    private final TickerplantServer server;

    TpController(final TickerplantServer server) {
        this.server = server;
    }

    @GetMapping("/status")
    TickerplantStatus status() {
        return server.status();
    }

    /** Body: {@code {"mode":"timer-publish","timer":"100ms"}} (timer optional: keeps the current one). */
    record ModeRequest(String mode, String timer) {
    }

    @PutMapping("/mode")
    Map<String, Object> mode(@RequestBody final ModeRequest req) {
        if (req == null || req.mode() == null) {
            throw ApiErrors.badRequest("mode is required [known=zero-latency|timer-publish|timer-log-publish]");
        }
        final PublishMode mode = PublishMode.parse(req.mode());
        final Duration timer = req.timer() == null ? Duration.ofNanos(server.call(t -> t.timerNanos())) : parseDuration(req.timer());
        server.setMode(mode, timer);
        return Map.of("mode", mode.id(), "timerMillis", timer.toMillis());
    }

    @PostMapping("/eod")
    Map<String, Object> endOfDay() {
        final String ended = server.call(t -> t.date().toString());
        server.endOfDay();
        final TickerplantStatus s = server.status();
        return Map.of("ended", ended, "date", s.date(), "sequence", s.journalSequence());
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
