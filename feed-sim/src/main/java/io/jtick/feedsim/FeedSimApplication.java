package io.jtick.feedsim;

import io.jtick.boot.ApiErrors;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** Starts feed-sim: settings from {@code tick.feed.*}, REST on 8013. */
@SpringBootApplication
@Import(ApiErrors.class)
public class FeedSimApplication {
    public static void main(final String[] args) {
        SpringApplication.run(FeedSimApplication.class, args);
    }
}
