/** Small allocation-free building blocks shared by the engines: symbol interning, clocks. */
package io.jtick.core.util;
