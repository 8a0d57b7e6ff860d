/** Spring Boot glue shared by the jtick services: core metrics to Micrometer, REST errors as JSON. */
package io.jtick.boot;
