package io.jtick.feedsim;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.RequestValidation;
import io.jtick.boot.access.ApiAccessConfiguration;
import io.jtick.boot.tls.TlsConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** Starts feed-sim: settings from {@code tick.feed.*}, REST on 8013; or, given {@code profile ...}, the profiling command line. */
@SpringBootApplication
@Import({ApiErrors.class, ApiDocs.class, RequestValidation.class, ApiAccessConfiguration.class, TlsConfiguration.class})
public class FeedSimApplication {
    /** {@code java -jar feed-sim.jar profile <experiment> ...} runs {@link ProfileCommand} instead of the service. */
    public static void main(final String[] args) {
        if (args.length > 0 && "profile".equals(args[0])) {
            ProfileCommand.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        SpringApplication.run(FeedSimApplication.class, args);
    }
}
