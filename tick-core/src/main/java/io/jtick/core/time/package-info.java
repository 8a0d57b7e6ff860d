/** Time as the engines see it: the injected epoch-nanosecond clock and the trading calendar (end of day in a zone). */
package io.jtick.core.time;
