package io.jtick.core.hdb.store;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class PartitionStoreTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    private static void stageTable(final PartitionStore.Staging stage, final String table, final String content) throws IOException {
        Files.createDirectory(stage.table(table));
        Files.writeString(stage.table(table).resolve("x"), content);
        PartitionStore.fsyncFile(stage.table(table).resolve("x"));
    }

    private List<String> entries(final Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void shouldPublishANewDateInOneRenameAndLeaveNoStagingBehind() throws IOException {
        try (PartitionStore.Staging stage = PartitionStore.stage(root, DAY)) {
            assertThat(stage.directory().getFileName().toString()).startsWith(".tmp-2026-11-20-");
            stageTable(stage, "trade", "new");
            stage.force(List.of("trade"));
            assertThat(stage.publish()).isTrue();
            assertThat(stage.target()).isEqualTo(root.resolve("2026-11-20"));
        }
        assertThat(entries(root)).containsExactly("2026-11-20");
        assertThat(Files.readString(root.resolve("2026-11-20/trade/x"))).isEqualTo("new");
    }

    @Test
    void shouldSwapTablesIntoAnExistingDateOneByOne() throws IOException {
        Files.createDirectories(root.resolve("2026-11-20/trade"));
        Files.writeString(root.resolve("2026-11-20/trade/x"), "old");
        Files.createDirectories(root.resolve("2026-11-20/quote"));
        try (PartitionStore.Staging stage = PartitionStore.stage(root, DAY)) {
            stageTable(stage, "trade", "new");
            assertThat(stage.publish()).as("the date exists").isFalse();
            stage.swapIn("trade");
        }
        assertThat(entries(root)).containsExactly("2026-11-20");
        assertThat(entries(root.resolve("2026-11-20"))).containsExactly("quote", "trade");
        assertThat(Files.readString(root.resolve("2026-11-20/trade/x"))).isEqualTo("new");
    }

    @Test
    void shouldDeleteAStagingThatWasNotPublished() throws IOException {
        try (PartitionStore.Staging stage = PartitionStore.stage(root, DAY)) {
            stageTable(stage, "trade", "lost");
        }
        assertThat(entries(root)).isEmpty();
    }

    @Test
    void shouldRecoverBySwappingBackAnOldTableAndDroppingStagings() throws IOException {
        Files.createDirectories(root.resolve(".tmp-2026-11-20-0000abcd/trade"));
        Files.createDirectories(root.resolve("2026-11-20/.old-trade-0000abcd"));
        Files.createDirectories(root.resolve("2026-11-20/.old-quote-0000abcd"));
        Files.createDirectories(root.resolve("2026-11-20/quote"));
        final PartitionStore.Recovery r = PartitionStore.recover(root);
        assertThat(r.restored()).containsExactly(root.resolve("2026-11-20/trade"));
        assertThat(r.deleted()).hasSize(2);
        assertThat(entries(root)).containsExactly("2026-11-20");
        assertThat(entries(root.resolve("2026-11-20"))).containsExactly("quote", "trade");
    }
}
