package io.jtick.image;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LayerArchiveTest {
    private static final long EPOCH = 1_700_000_000L;

    @TempDir
    Path tmp;

    private Path tree() throws IOException {
        final Path dir = tmp.resolve("tree");
        Files.createDirectories(dir.resolve("bin"));
        Files.createDirectories(dir.resolve("lib/deep"));
        Files.writeString(dir.resolve("bin/tool"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(dir.resolve("bin/tool"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("lib/deep/" + "x".repeat(120) + ".so"), "long name");
        Files.writeString(dir.resolve("lib/a.txt"), "a");
        Files.createSymbolicLink(dir.resolve("lib/link.so"), Path.of("deep/target.so"));
        return dir;
    }

    private static LayerArchive.Written write(final LayerArchive a, final Path layoutDir) throws IOException {
        return a.writeTo(new ImageLayout(layoutDir), EPOCH);
    }

    @Test
    void shouldWriteTheSameBytesForTheSameFilesWhateverTheirTimes() throws Exception {
        final Path dir = tree();
        final LayerArchive.Written first = write(new LayerArchive().addTree(dir, "/opt/x", 0), tmp.resolve("l1"));
        Files.setLastModifiedTime(dir.resolve("lib/a.txt"), FileTime.fromMillis(0));
        Files.setLastModifiedTime(dir.resolve("bin"), FileTime.fromMillis(123_456_789));
        final LayerArchive.Written second = write(new LayerArchive().addTree(dir, "/opt/x", 0), tmp.resolve("l2"));
        assertThat(second).isEqualTo(first);

        Files.writeString(dir.resolve("lib/a.txt"), "b");
        final LayerArchive.Written changed = write(new LayerArchive().addTree(dir, "/opt/x", 0), tmp.resolve("l3"));
        assertThat(changed.blob().digest()).isNotEqualTo(first.blob().digest());
        assertThat(changed.diffId()).isNotEqualTo(first.diffId());
    }

    @Test
    void shouldStoreModesOwnersLinksAndLongNamesWithOneTimeAndNoUserNames() throws Exception {
        final Path layoutDir = tmp.resolve("layout");
        final LayerArchive.Written w = write(new LayerArchive().addTree(tree(), "/opt/x", 0).addDirectory("/tmp", 01777, 0)
            .addDirectory("/var/jtick", 0755, 10001).addFile("/etc/passwd", "root:x:0:0::/:/sbin/nologin\n".getBytes(), 0644, 0),
            layoutDir);
        final Path blob = new ImageLayout(layoutDir).blob(w.blob().digest());
        assertThat(w.blob().digest()).isEqualTo("sha256:" + ImageLayout.hex(MessageDigest.getInstance("SHA-256")
            .digest(Files.readAllBytes(blob))));
        assertThat(w.blob().size()).isEqualTo(Files.size(blob));
        assertThat(w.blob().mediaType()).isEqualTo(ImageLayout.LAYER_GZIP);

        final Map<String, TarArchiveEntry> entries = new LinkedHashMap<>();
        final Map<String, String> contents = new LinkedHashMap<>();
        final MessageDigest tarDigest = MessageDigest.getInstance("SHA-256");
        final byte[] tarBytes;
        try (InputStream gz = new GZIPInputStream(Files.newInputStream(blob))) {
            tarBytes = gz.readAllBytes();
        }
        assertThat("sha256:" + ImageLayout.hex(tarDigest.digest(tarBytes))).as("diff_id is the digest of the tar").isEqualTo(w.diffId());
        assertThat((long) tarBytes.length).isEqualTo(w.tarBytes());
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new java.io.ByteArrayInputStream(tarBytes))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                entries.put(e.getName(), e);
                if (e.isFile()) {
                    contents.put(e.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        final List<String> names = new ArrayList<>(entries.keySet());
        assertThat(names).as("parents first, then path order").startsWith("etc/", "etc/passwd", "opt/", "opt/x/", "opt/x/bin/");
        assertThat(names).isSortedAccordingTo(String::compareTo);
        final String longName = "opt/x/lib/deep/" + "x".repeat(120) + ".so";
        assertThat(contents).containsEntry(longName, "long name").containsEntry("opt/x/bin/tool", "#!/bin/sh\necho hi\n");
        assertThat(entries.get("opt/x/bin/tool").getMode() & 07777).isEqualTo(0755);
        assertThat(entries.get("opt/x/lib/a.txt").getMode() & 07777).isEqualTo(0644);
        assertThat(entries.get("tmp/").getMode() & 07777).isEqualTo(01777);
        assertThat(entries.get("var/jtick/").getLongUserId()).isEqualTo(10001);
        assertThat(entries.get("var/jtick/").getLongGroupId()).isEqualTo(10001);
        assertThat(entries.get("opt/x/lib/link.so").isSymbolicLink()).isTrue();
        assertThat(entries.get("opt/x/lib/link.so").getLinkName()).isEqualTo("deep/target.so");
        for (final TarArchiveEntry e : entries.values()) {
            assertThat(e.getModTime().getTime()).as("time of %s", e.getName()).isEqualTo(EPOCH * 1000);
            assertThat(e.getUserName()).as("user name of %s", e.getName()).isEmpty();
            assertThat(e.getGroupName()).isEmpty();
            if (!e.getName().startsWith("var/jtick")) {
                assertThat(e.getLongUserId()).as("owner of %s", e.getName()).isZero();
            }
        }
    }

    @Test
    void shouldRefusePathsThatLeaveTheLayer() {
        assertThatThrownBy(() -> new LayerArchive().addFile("/opt/../etc/x", new byte[0], 0644, 0))
            .hasMessageContaining("bad path in a layer [path=/opt/../etc/x]");
        assertThatThrownBy(() -> new LayerArchive().addFile("/", new byte[0], 0644, 0)).hasMessageContaining("bad path");
    }

    @Test
    void shouldRefuseWhatIsNeitherFileNorDirectoryNorLink() throws Exception {
        final Path dir = Files.createDirectories(tmp.resolve("fifo"));
        final Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).start();
        Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo failed: no named pipe to refuse");
        assertThatThrownBy(() -> new LayerArchive().addTree(dir, "/x", 0))
            .hasMessageContaining("only files, directories and symbolic links").hasMessageContaining("pipe");
    }
}
