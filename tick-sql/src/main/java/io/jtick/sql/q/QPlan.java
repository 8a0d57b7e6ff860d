package io.jtick.sql.q;

import io.jtick.sql.SqlPlan;

/**
 * A select compiled for the engine: the engine's plan (the query document SQL compiles to as
 * well) and how its rows become q's answer.
 *
 * @param sql       the query document and the result's column names
 * @param keys      leading columns that are keys ({@code by}): the answer is a keyed table; 0: a table
 * @param exec      {@code exec}: a vector, an atom or a dictionary instead of a table
 * @param aggregate every column an aggregate and no {@code by}: one row ({@code exec}'s atoms)
 * @param timespan  result columns written as timespans (the {@code time} of a {@code time:timespan} table)
 * @param reverse   the engine's rows come newest first and q's answer is them in reverse ({@code select[-n]})
 */
public record QPlan(SqlPlan sql, int keys, boolean exec, boolean aggregate, boolean[] timespan, boolean reverse) {
}
