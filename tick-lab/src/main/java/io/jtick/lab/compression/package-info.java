/**
 * The compression study: a loaded table written in each encoding, sizes and read/query times side by side, and
 * its command line.
 */
package io.jtick.lab.compression;
