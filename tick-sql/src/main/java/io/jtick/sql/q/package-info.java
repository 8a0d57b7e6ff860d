/**
 * q over the one engine: a q-sql subset and functional selects parsed ({@code QParser}) and
 * compiled to the engine's query document ({@code QCompiler}), answered as q values ({@code QEvaluator}).
 */
package io.jtick.sql.q;
