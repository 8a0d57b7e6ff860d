/**
 * KX's machine checks throughput.q and io.q, measured the way jtick does each operation and reported as measures
 * beside KX's figures.
 */
package io.jtick.lab.machinecheck;
