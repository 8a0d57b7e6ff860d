/** Table schemas: typed, ordered columns with {@code time} and {@code sym} first, loaded from YAML. */
package io.jtick.core.schema;
