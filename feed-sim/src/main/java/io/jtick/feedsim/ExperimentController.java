package io.jtick.feedsim;

import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RunSpec;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/experiments}: what {@code POST /api/runs} can run, each experiment with the base its matrix entries
 * start from and the matrix it runs when given none (the console's run form shows them).
 */
@RestController
@Tag(name = "profiling")
class ExperimentController {
    /**
     * One experiment.
     *
     * @param id              what {@code POST /api/runs} takes as {@code experiment}
     * @param title           what it measures
     * @param paperTable      the white paper's table number, 0 when it has none
     * @param parameterColumns the parameters its result table shows
     * @param figureColumns   the medians its result table shows
     * @param base            the entry every matrix entry starts from
     * @param defaultMatrix   the entries run when the request has no matrix (empty for custom)
     * @param durationSeconds the default time per entry
     */
    record ExperimentInfo(String id, String title, int paperTable, List<String> parameterColumns, List<String> figureColumns,
                          LabParams base, List<LabParams> defaultMatrix, int durationSeconds) {
    }

    @Operation(summary = "The experiments a run can be: parameters, the base of an entry, the default matrix")
    @ApiResponse(responseCode = "200", description = "every experiment", content = @Content(array = @ArraySchema(schema = @Schema(
        type = "object")), examples = @ExampleObject(value = "[{\"id\":\"publish-frequency\",\"title\":\"publish frequency\","
        + "\"paperTable\":4,\"parameterColumns\":[\"mode\",\"timer\",\"rows/s\"],\"figureColumns\":[\"tpupd\",\"tptimer\",\"tplog\","
        + "\"tppub\",\"rdbrecv\",\"rdbupd\",\"tpcpu\",\"rdbcpu\"],\"base\":{\"table\":\"trade\",\"r\":1,\"u\":10,\"t\":1,\"ex\":0,"
        + "\"mode\":\"zero-latency\",\"timerMillis\":100,\"subscribers\":1,\"broadcast\":true,\"syms\":100},\"defaultMatrix\":[],"
        + "\"durationSeconds\":8}]")))
    @GetMapping("/api/experiments")
    List<ExperimentInfo> experiments() {
        final List<ExperimentInfo> out = new ArrayList<>();
        for (final Experiment e : Experiment.values()) {
            out.add(new ExperimentInfo(e.id(), e.title(), e.paperTable(), e.parameterColumns(), e.figureColumns(), e.base(),
                e.defaultMatrix(), RunSpec.DEFAULT_DURATION_SECONDS));
        }
        return out;
    }
}
