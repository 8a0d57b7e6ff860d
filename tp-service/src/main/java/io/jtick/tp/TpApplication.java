package io.jtick.tp;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.access.ApiAccessConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;

/** The tickerplant service: builds the core context from {@code tick.tp.*}, starts it, waits. */
@SpringBootApplication
@ConfigurationPropertiesScan
@Import({ApiErrors.class, ApiDocs.class, ApiAccessConfiguration.class})
public class TpApplication {
    public static void main(final String[] args) {
        SpringApplication.run(TpApplication.class, args);
    }
}
