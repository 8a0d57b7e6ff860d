/** tp-service: Spring Boot wiring of the tickerplant engine, with REST for status, publish mode and end of day. */
package io.jtick.tp;
