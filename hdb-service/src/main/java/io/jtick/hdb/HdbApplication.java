package io.jtick.hdb;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.RequestValidation;
import io.jtick.boot.access.ApiAccessConfiguration;
import io.jtick.boot.tls.TlsConfiguration;
import io.jtick.lab.compression.CompressionStudyCli;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * Starts the HDB service: settings from {@code tick.hdb.*}, REST on 8012, replay port 5012. With
 * {@code compression-study}, {@code import}, {@code export} or {@code replays} as the first argument it runs that
 * command line instead ({@link CompressionStudyCli}, {@link HdbCommands}) and exits without starting
 * the web server ({@code ./jtick compression-study|import|export|replays ...}).
 */
@SpringBootApplication
@Import({ApiErrors.class, ApiDocs.class, RequestValidation.class, ApiAccessConfiguration.class, TlsConfiguration.class})
public class HdbApplication {
    /** First argument that selects the compression-study command line. */
    static final String STUDY_COMMAND = "compression-study";

    public static void main(final String[] args) throws Exception {
        if (args.length > 0 && STUDY_COMMAND.equals(args[0])) {
            System.exit(CompressionStudyCli.run(args));
        }
        if (args.length > 0 && (HdbCommands.IMPORT.equals(args[0]) || HdbCommands.EXPORT.equals(args[0])
            || HdbCommands.REPLAYS.equals(args[0]))) {
            System.exit(HdbCommands.run(args, System.out, System.err));
        }
        SpringApplication.run(HdbApplication.class, args);
    }
}
