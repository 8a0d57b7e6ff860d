package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.core.bulk.HdbImport;
import io.jtick.core.replay.ReplayServer;
import io.jtick.core.replay.ReplayStatus;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * Historical replays and bulk imports: {@code GET /api/replays}, {@code DELETE /api/replays/{id}},
 * {@code POST /api/import}, {@code GET /api/import}, {@code GET /api/import/{id}}. The replays
 * themselves run on the replay port ({@code tick.hdb.replay-port}, docs/wire-format.md "Replay").
 */
@RestController
@RequestMapping("/api")
class ReplayController {
    private final ReplayLifecycle replay;
    private final ImportRunner imports;

    ReplayController(final ReplayLifecycle replay, final ImportRunner imports) {
        this.replay = replay;
        this.imports = imports;
    }

    /** What {@code GET /api/replays} answers: the port, then running replays (oldest first) and the last 20 that ended. */
    record ReplaysView(int port, int running, int streams, List<ReplayStatus> replays) {
    }

    private ReplayServer server() {
        final ReplayServer s = replay.server();
        if (s == null) {
            throw new ApiErrors.ApiException(HttpStatus.SERVICE_UNAVAILABLE, "replay is off [key=tick.hdb.replay.enabled]");
        }
        return s;
    }

    /** Replays: consumer, tables, dates, rows sent of all, progress %, rows/s, shared or on its own. */
    @GetMapping("/replays")
    ReplaysView replays() {
        final ReplayServer s = server();
        return new ReplaysView(s.port(), s.activeCount(), s.streamCount(), s.replays());
    }

    /** Stops a running replay: its consumer gets REPLAY_DONE cancelled with what was sent; 404 when none runs with that id. */
    @DeleteMapping("/replays/{id}")
    ResponseEntity<ReplayStatus> cancel(@PathVariable("id") final long id) {
        final ReplayServer s = server();
        if (!s.cancel(id, "cancelled by DELETE /api/replays/" + id)) {
            throw new ApiErrors.ApiException(HttpStatus.NOT_FOUND, "no running replay [id=" + id + "]");
        }
        final ReplayStatus st = s.replays().stream().filter(r -> r.id() == id).findFirst().orElse(null);
        return ResponseEntity.accepted().body(st);
    }

    /**
     * Starts a bulk import of recorded files into partitions by each row's own date; 202 with the
     * import's report (state running), which {@code GET /api/import/{id}} follows.
     */
    @PostMapping("/import")
    ResponseEntity<HdbImport.Report> startImport(@RequestBody final ImportRunner.Body body) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(imports.start(body));
    }

    /** Imports, newest first. */
    @GetMapping("/import")
    List<HdbImport.Report> listImports() {
        return imports.list();
    }

    /** One import: rows read and written, dates written, bad lines with file and line. */
    @GetMapping("/import/{id}")
    HdbImport.Report getImport(@PathVariable("id") final String id) {
        return imports.get(id);
    }
}
