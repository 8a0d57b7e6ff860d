package io.jtick.bench;

import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Entry point of {@code benchmarks.jar}: JMH's own command line, except that every fork also gets
 * the JVM flags jtick needs (Chronicle's and Agrona's {@code --add-opens/--add-exports}, analytics
 * off), read from the {@code jvm.flags} resource that Maven fills from the parent pom's
 * {@code jtick.jvm.flags}, plus the Java 24+ ones. Flags given with {@code -jvmArgsAppend} are kept.
 */
public final class BenchMain {
    /** Flags Java 24 and newer need for Chronicle (native access, sun.misc.Unsafe memory access). */
    static final List<String> JAVA_24_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow");

    private BenchMain() {
    }

    public static void main(final String[] args) throws IOException {
        final CommandLineOptions cmd;
        try {
            cmd = new CommandLineOptions(args);
        } catch (final CommandLineOptionException e) {
            System.err.println("Error parsing command line:");
            System.err.println(" " + e.getMessage());
            System.exit(1);
            return;
        }
        if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers()
            || cmd.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        final List<String> append = new ArrayList<>(jvmFlags());
        if (cmd.getJvmArgsAppend().hasValue()) {
            final Collection<String> given = cmd.getJvmArgsAppend().get();
            append.addAll(given);
        }
        try {
            new Runner(new OptionsBuilder().parent(cmd).jvmArgsAppend(append.toArray(new String[0])).build()).run();
        } catch (final RunnerException e) {
            System.err.print("ERROR: ");
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    /** The flags every jtick JVM needs on the running Java version. */
    static List<String> jvmFlags() throws IOException {
        final List<String> flags = new ArrayList<>();
        try (InputStream in = BenchMain.class.getResourceAsStream("/jvm.flags")) {
            if (in == null) {
                throw new IOException("jvm.flags resource missing from the benchmarks jar: rebuild bench-jmh");
            }
            for (final String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                final String body = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
                for (final String flag : body.trim().split("\\s+")) {
                    if (flag.isEmpty()) {
                        continue;
                    }
                    if (flag.contains("${")) {
                        throw new IOException("jvm.flags was not filtered by Maven [flag=" + flag + "]: rebuild bench-jmh");
                    }
                    flags.add(flag);
                }
            }
        }
        if (Runtime.version().feature() >= 24) {
            flags.addAll(JAVA_24_FLAGS);
        }
        return flags;
    }
}
