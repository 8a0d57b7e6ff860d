/** Query results: the row-by-row sink contract, a result kept in memory, and the streaming JSON and CSV writers. */
package io.jtick.core.query.result;
