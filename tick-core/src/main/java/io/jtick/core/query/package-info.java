/** The query engine (docs/query.md): prepare a JSON query against a table source and stream its result; the split a gateway runs. */
package io.jtick.core.query;
