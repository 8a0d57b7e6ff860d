/** Spring Boot glue shared by the jtick services: core metrics to Prometheus (histograms) and Micrometer, REST errors as JSON. */
package io.jtick.boot;
