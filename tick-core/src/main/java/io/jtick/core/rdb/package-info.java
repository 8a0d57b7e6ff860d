/** Real-time database ({@code r.q}): today's tables in memory, column arrays with a sym index, fed by a tickerplant subscription. */
package io.jtick.core.rdb;
