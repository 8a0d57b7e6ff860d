/**
 * What every study of the laboratory reads and writes: the experiments, an entry's parameters, a run's spec, its
 * rows of figures and its report.
 */
package io.jtick.lab.run;
