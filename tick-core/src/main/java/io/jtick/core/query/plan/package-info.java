/** Internal to the query engine, not API: a query bound to its tables' schemas as the immutable specs every segment scan runs. */
package io.jtick.core.query.plan;
