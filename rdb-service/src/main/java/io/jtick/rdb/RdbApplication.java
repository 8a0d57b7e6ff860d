package io.jtick.rdb;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.RequestValidation;
import io.jtick.boot.access.ApiAccessConfiguration;
import io.jtick.boot.tls.TlsConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** Starts the RDB: properties → {@link io.jtick.core.rdb.RealtimeDatabase} + subscription → query REST. */
@SpringBootApplication
@Import({ApiErrors.class, ApiDocs.class, RequestValidation.class, ApiAccessConfiguration.class, TlsConfiguration.class})
public class RdbApplication {
    public static void main(final String[] args) {
        SpringApplication.run(RdbApplication.class, args);
    }
}
