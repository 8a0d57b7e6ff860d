/** The query language: JSON query documents parsed and checked into a model, their literals, value types, limits and errors. */
package io.jtick.core.query.model;
