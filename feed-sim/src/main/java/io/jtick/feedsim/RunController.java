package io.jtick.feedsim;

import io.jtick.boot.ApiErrors;
import io.jtick.core.lab.ResultChart;
import io.jtick.core.lab.ResultTables;
import io.jtick.core.lab.RunReport;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The profiling control plane: {@code POST /api/runs} (202 with the id; 400 bad parameters, 409
 * while a run runs), {@code GET /api/runs}, {@code GET /api/runs/{id}} (JSON, or
 * {@code ?format=csv|text|svg} / {@code Accept: text/csv|text/plain|image/svg+xml}; 404 unknown)
 * and {@code DELETE /api/runs/{id}} (stops it).
 */
@RestController
@RequestMapping("/api/runs")
class RunController {
    static final MediaType CSV = new MediaType("text", "csv", StandardCharsets.UTF_8);
    static final MediaType TEXT = new MediaType("text", "plain", StandardCharsets.UTF_8);
    static final MediaType SVG = MediaType.parseMediaType("image/svg+xml");

    private final RunService runs;

    RunController(final RunService runs) {
        this.runs = runs;
    }

    @PostMapping
    ResponseEntity<Map<String, Object>> start(@RequestBody(required = false) final Map<String, Object> body) {
        final Map<String, Object> answer = runs.start(body);
        return ResponseEntity.accepted().location(URI.create("/api/runs/" + answer.get("id"))).body(answer);
    }

    @GetMapping
    List<Map<String, Object>> list() {
        return runs.list();
    }

    @GetMapping("/{id}")
    ResponseEntity<?> get(@PathVariable final String id, @RequestParam(required = false) final String format,
                          @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept) {
        final String f = format(format, accept);
        final RunReport run = runs.get(id);
        switch (f) {
            case "csv":
                return ResponseEntity.ok().contentType(CSV).body(ResultTables.csv(run));
            case "text":
                return ResponseEntity.ok().contentType(TEXT).body(ResultTables.text(run));
            case "svg":
                return ResponseEntity.ok().contentType(SVG).body(ResultChart.svg(run));
            case "json":
            default:
                return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(run);
        }
    }

    @DeleteMapping("/{id}")
    RunReport stop(@PathVariable final String id) {
        return runs.stop(id);
    }

    /** {@code format} wins; else the first of text/csv, image/svg+xml, text/plain named in Accept; else JSON. */
    static String format(final String format, final String accept) {
        if (format != null) {
            final String f = format.trim().toLowerCase(Locale.ROOT);
            if (!List.of("json", "csv", "text", "svg").contains(f)) {
                throw ApiErrors.badRequest("unknown format [format=" + format + ", known=json|csv|text|svg]");
            }
            return f;
        }
        if (accept != null) {
            for (final MediaType m : MediaType.parseMediaTypes(accept)) {
                if (m.isWildcardType()) {
                    continue;
                }
                if (m.isCompatibleWith(MediaType.APPLICATION_JSON)) {
                    return "json";
                }
                if ("text".equals(m.getType()) && "csv".equals(m.getSubtype())) {
                    return "csv";
                }
                if ("image".equals(m.getType()) && m.getSubtype().startsWith("svg")) {
                    return "svg";
                }
                if ("text".equals(m.getType()) && "plain".equals(m.getSubtype())) {
                    return "text";
                }
            }
        }
        return "json";
    }
}
