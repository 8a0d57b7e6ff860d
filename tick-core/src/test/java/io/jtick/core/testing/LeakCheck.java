package io.jtick.core.testing;

import io.netty.util.ResourceLeakDetector;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.queue.ChronicleQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Fails a test that leaked (QuestDB's {@code assertMemoryLeak}, Chronicle's {@code QueueTestCommon},
 * as one JUnit 5 extension): Netty buffers it allocated and did not release, threads it started that
 * are still alive, and files or sockets it opened that are still open ({@code /proc/self/fd}, Linux).
 *
 * <pre>
 * &#64;ExtendWith(LeakCheck.class)          // every test of the class, after its &#64;AfterEach methods
 * class JournalTest { ... }
 *
 * &#64;ExtendWith(LeakCheck.class)
 * &#64;LeakCheck.Options(perClass = true)   // resources shared through &#64;BeforeAll/&#64;AfterAll: check around the class
 * </pre>
 *
 * What is shutting down is waited for, never slept on: each new thread is joined until a deadline,
 * then buffers and descriptors are re-checked until the same deadline (Chronicle's background
 * releaser is drained first). Buffers are counted exactly, not found by GC: {@link LeakCheckSession}
 * installs a counting Netty leak detector when the test run starts, and the run must use Netty's
 * paranoid level (the build sets it; the session sets it when nothing else did).
 *
 * <p>Ignored, because the JVM or a library starts them once and keeps them by design: the thread
 * and descriptor patterns below (JDK housekeeping threads, Netty's global executor and object cleaner,
 * Chronicle's background threads; class-path jars, native libraries, /dev/random, the JVM's attach
 * socket), and the socket Chronicle opens with the first queue of a JVM (one is built and closed
 * before the first check). A class adds its own with {@link Options#ignoreThreads()} and
 * {@link Options#ignoreFiles()}.
 */
public final class LeakCheck implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final int DEFAULT_WAIT_SECONDS = 10;
    private static final Pattern IGNORED_THREADS = Pattern.compile(String.join("|",
        "Attach Listener", "process reaper", "Common-Cleaner", "Signal Dispatcher", "Notification Thread",
        "ForkJoinPool\\.commonPool-worker-\\d+", "junit-jupiter-timeout-watcher", "surefire-forkedjvm-.*",
        "globalEventExecutor-.*", "ObjectCleanerThread",
        ".*~?[Bb]ackground~?[Rr]esource~?[Rr]eleaser", ".*disk~space~checker", "chronicle~.*"));
    private static final Pattern IGNORED_FILES = Pattern.compile(String.join("|",
        ".*\\.jar", ".*\\.so(\\.\\d+)*", "/dev/u?random", ".*/lib/modules", "/proc/\\d+/fd",
        "socket:\\[\\d+\\] \\[unix: .* /tmp/\\.java_pid\\d+(\\.tmp)?\\]"));
    private static final Path FDS = Paths.get("/proc/self/fd");
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(LeakCheck.class);

    /** Per-class settings. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface Options {
        /** Check once around the whole class (it shares resources between its tests) instead of after each test. */
        boolean perClass() default false;

        /** More thread-name patterns (regular expressions) that this class's tests may leave running. */
        String[] ignoreThreads() default {};

        /** More patterns (regular expressions) of what an open descriptor points at that this class may leave open. */
        String[] ignoreFiles() default {};

        /**
         * How long what is shutting down may take before it counts as leaked. Raise it only for what closes on a
         * clock of its own: the JDK's HTTP keep-alive cache closes an idle connection on a 5 s timer once it has
         * been idle 5 s, so up to 10 s after its last use.
         */
        int waitSeconds() default DEFAULT_WAIT_SECONDS;
    }

    static {
        openChronicleOnce();
    }

    /**
     * The first Chronicle queue a JVM builds opens a socket the process keeps for good (the same one
     * for every later queue); build one before any snapshot so it is not taken for a test's leak.
     */
    private static void openChronicleOnce() {
        try {
            final Path dir = Files.createTempDirectory("leak-check-warm-up");
            ChronicleQueue.singleBuilder(dir).build().close();
            BackgroundResourceReleaser.releasePendingResources();
            try (Stream<Path> files = Files.walk(dir)) {
                for (final Path p : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        } catch (final IOException e) {
            throw new IllegalStateException("cannot warm up Chronicle Queue in a temp directory", e);
        }
    }

    private record Snapshot(long bufferMark, Set<Thread> threads, Map<String, String> fds) {
    }

    @Override
    public void beforeAll(final ExtensionContext context) {
        requireCounting();
        if (perClass(context)) {
            context.getStore(NS).put("class", snapshot());
        }
    }

    @Override
    public void afterAll(final ExtensionContext context) {
        final Snapshot s = context.getStore(NS).remove("class", Snapshot.class);
        if (s != null) {
            check(s, context, "test class " + context.getDisplayName());
        }
    }

    @Override
    public void beforeEach(final ExtensionContext context) {
        if (!perClass(context)) {
            context.getStore(NS).put("test", snapshot());
        }
    }

    @Override
    public void afterEach(final ExtensionContext context) {
        final Snapshot s = context.getStore(NS).remove("test", Snapshot.class);
        if (s != null) {
            check(s, context, "test " + context.getDisplayName());
        }
    }

    private static boolean perClass(final ExtensionContext context) {
        return context.getRequiredTestClass().isAnnotationPresent(Options.class)
            && context.getRequiredTestClass().getAnnotation(Options.class).perClass();
    }

    private static void requireCounting() {
        if (!CountingLeakDetector.counting()) {
            // not installed by the session listener: install it now, then make Netty create its detector
            CountingLeakDetector.install();
            try {
                Class.forName("io.netty.buffer.AbstractByteBuf", true, LeakCheck.class.getClassLoader());
            } catch (final ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            if (!CountingLeakDetector.counting()) {
                throw new IllegalStateException("Netty's buffer leak detector was created before LeakCheck could count buffers: "
                    + "run with io.jtick.core.testing.LeakCheckSession registered as a JUnit LauncherSessionListener "
                    + "(tick-core's test jar registers it in META-INF/services)");
            }
        }
        if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID) {
            throw new IllegalStateException("LeakCheck counts every buffer only at Netty's paranoid leak detection level "
                + "[level=" + ResourceLeakDetector.getLevel() + "]: run with -Dio.netty.leakDetectionLevel=paranoid (the build does)");
        }
    }

    private static Snapshot snapshot() {
        return new Snapshot(CountingLeakDetector.mark(), new HashSet<>(Thread.getAllStackTraces().keySet()), openFiles());
    }

    private static void check(final Snapshot before, final ExtensionContext context, final String what) {
        final Options o = context.getRequiredTestClass().getAnnotation(Options.class);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o == null ? DEFAULT_WAIT_SECONDS : o.waitSeconds());
        final Pattern ignoredThreads = ignored(IGNORED_THREADS, context, Options::ignoreThreads);
        final Pattern ignoredFiles = ignored(IGNORED_FILES, context, Options::ignoreFiles);
        final List<String> problems = new ArrayList<>();

        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (before.threads().contains(t) || t == Thread.currentThread() || ignoredThreads.matcher(t.getName()).matches()) {
                continue;
            }
            join(t, deadline);
            if (t.isAlive()) {
                problems.add("thread still running: " + t.getName() + " " + Arrays.toString(Arrays.copyOf(t.getStackTrace(), 6)));
            }
        }

        List<String> buffers;
        List<String> files;
        while (true) {
            BackgroundResourceReleaser.releasePendingResources();
            buffers = CountingLeakDetector.liveSince(before.bufferMark());
            files = newFiles(before.fds(), ignoredFiles);
            if ((buffers.isEmpty() && files.isEmpty()) || System.nanoTime() > deadline) {
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        for (final String b : buffers.subList(0, Math.min(5, buffers.size()))) {
            problems.add("buffer not released:" + System.lineSeparator() + b);
        }
        if (buffers.size() > 5) {
            problems.add("... " + (buffers.size() - 5) + " more buffers not released");
        }
        for (final String f : files) {
            problems.add("file descriptor still open: " + f);
        }
        if (!files.isEmpty()) {
            // who may hold it: every live thread not there when the check began, ignored ones included (named as such)
            final List<String> since = new ArrayList<>();
            for (final Thread t : Thread.getAllStackTraces().keySet()) {
                if (!before.threads().contains(t) && t != Thread.currentThread()) {
                    since.add(t.getName() + (ignoredThreads.matcher(t.getName()).matches() ? " (ignored)" : ""));
                }
            }
            problems.add("threads started since the check began: " + since);
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(what + " leaked (" + problems.size() + "):" + System.lineSeparator()
                + String.join(System.lineSeparator(), problems));
        }
    }

    private static Pattern ignored(final Pattern always, final ExtensionContext context, final Function<Options, String[]> more) {
        final Options o = context.getRequiredTestClass().getAnnotation(Options.class);
        if (o == null || more.apply(o).length == 0) {
            return always;
        }
        return Pattern.compile(always.pattern() + "|" + String.join("|", more.apply(o)));
    }

    private static void join(final Thread t, final long deadline) {
        final long left = deadline - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + t.getName() + " to end", e);
        }
    }

    private static List<String> newFiles(final Map<String, String> before, final Pattern ignored) {
        final List<String> out = new ArrayList<>();
        for (final Map.Entry<String, String> e : openFiles().entrySet()) {
            if (e.getValue().equals(before.get(e.getKey()))) {
                continue;
            }
            final String what = e.getValue() + describeSocket(e.getValue());
            if (!ignored.matcher(what).matches()) {
                out.add("fd " + e.getKey() + " -> " + what);
            }
        }
        return out;
    }

    private static String describeSocket(final String f) {
        final int at = f.indexOf("socket:[");
        if (at < 0) {
            return "";
        }
        final String inode = f.substring(at + 8, f.length() - 1);
        final StringBuilder sb = new StringBuilder();
        for (final String table : new String[] {"tcp", "tcp6", "udp", "udp6", "unix"}) {
            try (Stream<String> lines = Files.lines(Paths.get("/proc/net/" + table))) {
                lines.filter(l -> l.matches(".*\\s" + inode + "(\\s.*|$)")).forEach(l -> sb.append(" [").append(table).append(": ")
                    .append(l.trim()).append(']'));
            } catch (final IOException | RuntimeException e) {
                // table absent
            }
        }
        return sb.toString();
    }

    /** fd number → what it points at; empty where /proc is absent (not Linux). */
    private static Map<String, String> openFiles() {
        final Map<String, String> fds = new HashMap<>();
        if (!Files.isDirectory(FDS)) {
            return fds;
        }
        try (Stream<Path> list = Files.list(FDS)) {
            for (final Path p : (Iterable<Path>) list::iterator) {
                try {
                    fds.put(p.getFileName().toString(), Files.readSymbolicLink(p).toString());
                } catch (final NoSuchFileException gone) {
                    // closed while listing (the listing's own descriptor among them)
                } catch (final IOException e) {
                    fds.put(p.getFileName().toString(), "unreadable: " + e.getMessage());
                }
            }
        } catch (final IOException e) {
            throw new IllegalStateException("cannot list " + FDS, e);
        }
        return fds;
    }
}
