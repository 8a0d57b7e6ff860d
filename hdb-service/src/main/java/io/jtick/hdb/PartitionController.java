package io.jtick.hdb;

import io.jtick.boot.ApiErrors.ApiException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.stream.Stream;

/** Lists the partitions under the HDB root: directories named by an ISO date, oldest first. */
@RestController
@RequestMapping("/api")
final class PartitionController {
    private final Path root;

    PartitionController(final HdbProperties properties) {
        this.root = properties.root();
    }

    /** The dated directories under the root; an empty list when the root is missing or empty. */
    @GetMapping("/partitions")
    List<String> partitions() {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(root)) {
            return entries
                .filter(Files::isDirectory)
                .map(p -> p.getFileName().toString())
                .filter(PartitionController::isDate)
                .sorted()
                .toList();
        } catch (final IOException | UncheckedIOException e) {
            throw new ApiException(HttpStatus.INTERNAL_SERVER_ERROR, "cannot list the HDB root [root=" + root + ", error=" + e + "]");
        }
    }

    private static boolean isDate(final String name) {
        try {
            LocalDate.parse(name);
            return true;
        } catch (final DateTimeParseException ignored) {
            return false;
        }
    }
}
