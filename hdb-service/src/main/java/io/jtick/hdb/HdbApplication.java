package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/** Starts the HDB service: settings from {@code tick.hdb.*}, REST on 8012. */
@SpringBootApplication
@EnableConfigurationProperties(HdbProperties.class)
@Import(ApiErrors.class)
public class HdbApplication {
    public static void main(final String[] args) {
        SpringApplication.run(HdbApplication.class, args);
    }
}
