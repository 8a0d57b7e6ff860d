/**
 * The web console feed-sim serves at {@code /}: its static page reads the four services' documented REST APIs, the other
 * three through a same-origin pass-through of their read endpoints ({@code /api/console/...}).
 */
package io.jtick.feedsim.console;
