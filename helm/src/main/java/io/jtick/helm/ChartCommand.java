package io.jtick.helm;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import java.nio.file.Path;

/**
 * The part of the helm CLI that helm/check.sh uses, on Helm's own library (helm-java), for a
 * machine with Java and no helm binary (CI):
 * <pre>
 *   java -jar helm/target/jtick-helm.jar lint [--strict] CHART
 *   java -jar helm/target/jtick-helm.jar template NAME CHART [--namespace NS] [--set KEY=VALUE]...
 *   java -jar helm/target/jtick-helm.jar version --short
 * </pre>
 * {@code lint} takes no values (helm-java's lint has none); {@code template} prints the manifests.
 * Exit status 0 ok, 1 the chart failed, 2 a bad command line.
 */
public final class ChartCommand {
    private ChartCommand() {
    }

    public static void main(final String[] args) {
        try {
            System.exit(run(args));
        } catch (final IllegalArgumentException e) {
            System.err.println("jtick-helm: " + e.getMessage());
            System.exit(2);
        } catch (final IllegalStateException e) {
            System.err.println("Error: " + e.getMessage());
            System.exit(1);
        }
    }

    static int run(final String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: lint [--strict] CHART | template NAME CHART [--namespace NS] [--set K=V]... "
                + "| version --short");
        }
        switch (args[0]) {
            case "version" -> {
                System.out.println("helm-java " + Helm.class.getPackage().getImplementationVersion());
                return 0;
            }
            case "lint" -> {
                return lint(args);
            }
            case "template" -> {
                System.out.print(template(args));
                return 0;
            }
            default -> throw new IllegalArgumentException("unknown command [command=" + args[0] + ", known=lint|template|version]");
        }
    }

    private static int lint(final String[] args) {
        boolean strict = false;
        Path chart = null;
        for (int i = 1; i < args.length; i++) {
            if ("--strict".equals(args[i])) {
                strict = true;
            } else if (args[i].startsWith("-")) {
                throw new IllegalArgumentException("lint takes --strict only [option=" + args[i] + "]");
            } else {
                chart = Path.of(args[i]);
            }
        }
        if (chart == null) {
            throw new IllegalArgumentException("lint needs a chart directory");
        }
        final var lint = new Helm(chart).lint();
        final LintResult r = (strict ? lint.strict() : lint).call();
        r.getMessages().forEach(System.out::println);
        System.out.println(r.isFailed() ? "Error: 1 chart(s) linted, 1 chart(s) failed" : "1 chart(s) linted, 0 chart(s) failed");
        return r.isFailed() ? 1 : 0;
    }

    /** The manifests {@code helm template NAME CHART [--namespace NS] [--set K=V]...} prints. */
    static String template(final String[] args) {
        if (args.length < 3) {
            throw new IllegalArgumentException("template needs NAME and CHART");
        }
        final TemplateCommand t = new Helm(Path.of(args[2])).template().withName(args[1]);
        for (int i = 3; i < args.length; i++) {
            final String a = args[i];
            final String v = i + 1 < args.length ? args[++i] : null;
            if (v == null) {
                throw new IllegalArgumentException("option needs a value [option=" + a + "]");
            }
            switch (a) {
                case "--namespace", "-n" -> t.withNamespace(v);
                case "--set" -> {
                    for (final String kv : v.split(",")) {
                        final int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--set takes KEY=VALUE[,KEY=VALUE] [value=" + v + "]");
                        }
                        t.set(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                default -> throw new IllegalArgumentException("template takes --namespace and --set only [option=" + a + "]");
            }
        }
        return t.call();
    }
}
