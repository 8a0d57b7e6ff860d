/** Internal to the query engine, not API: running a plan over table segments (bind, scan in batches, filter, aggregate, emit). */
package io.jtick.core.query.exec;
