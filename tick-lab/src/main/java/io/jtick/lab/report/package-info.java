/**
 * A run rendered for people: text and CSV tables laid out like the white paper's, SVG charts, and the paper's
 * own figures to compare against.
 */
package io.jtick.lab.report;
