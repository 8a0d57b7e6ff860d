package io.jtick.tp;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.RequestValidation;
import io.jtick.boot.access.ApiAccessConfiguration;
import io.jtick.boot.tls.TlsConfiguration;
import io.jtick.core.journal.JournalRepair;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;

/**
 * The tickerplant service: builds the core context from {@code tick.tp.*}, starts it, waits. With
 * {@code journal repair <day>} as arguments it runs the {@link JournalRepair} command line instead and
 * exits without starting anything ({@code ./jtick journal repair ...}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@Import({ApiErrors.class, ApiDocs.class, RequestValidation.class, ApiAccessConfiguration.class, TlsConfiguration.class})
public class TpApplication {
    public static void main(final String[] args) {
        if (args.length > 0 && "journal".equals(args[0])) {
            System.exit(JournalRepair.cli(args, System.out, System.err));
        }
        SpringApplication.run(TpApplication.class, args);
    }
}
