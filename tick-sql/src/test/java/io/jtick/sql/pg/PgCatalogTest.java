package io.jtick.sql.pg;

import io.jtick.core.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog statements Grafana's PostgreSQL data source sends, word for word as its query builder
 * and its settings page write them (postgresMetaQuery.ts, with the table {@code trade} filled in).
 */
class PgCatalogTest {
    private static final String SCHEMA_CONSTRAINT = """

              quote_ident(table_schema) IN (
              SELECT
                CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
              FROM
                generate_series(
                  array_lower(string_to_array(current_setting('search_path'),','),1),
                  array_upper(string_to_array(current_setting('search_path'),','),1)
                ) as i,
                string_to_array(current_setting('search_path'),',') s
              )""";

    private final PgCatalog catalog = new PgCatalog(() -> List.of(TableSchema.trade(0), TableSchema.quote(0)));

    @Test
    void shouldListTablesForGrafanasQueryBuilder() {
        final String sql = "SELECT\n    CASE WHEN " + SCHEMA_CONSTRAINT + "\n      THEN quote_ident(table_name)\n"
            + "      ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)\n    END AS \"table\"\n"
            + "    FROM information_schema.tables\n    WHERE quote_ident(table_schema) NOT IN ('information_schema',\n"
            + "                             'pg_catalog',\n                             '_timescaledb_cache',\n"
            + "                             '_timescaledb_catalog',\n                             '_timescaledb_internal',\n"
            + "                             '_timescaledb_config',\n                             'timescaledb_information',\n"
            + "                             'timescaledb_experimental')\n"
            + "    ORDER BY CASE WHEN " + SCHEMA_CONSTRAINT + " THEN 0 ELSE 1 END, 1";
        assertThat(PgCatalog.handles(sql)).isTrue();
        final PgCatalog.Answer a = catalog.answer(sql);
        assertThat(a.names()).containsExactly("table");
        assertThat(a.rows()).containsExactly(List.of("trade"), List.of("quote"));
    }

    @Test
    void shouldListOneTablesColumnsWithTheirTypesForGrafanasQueryBuilder() {
        final String t = "'trade'";
        final String sql = "SELECT quote_ident(column_name) AS \"column\", data_type AS \"type\"\n"
            + "    FROM information_schema.columns\n    WHERE\n"
            + "      CASE WHEN array_length(parse_ident(" + t + "),1) = 2\n"
            + "        THEN quote_ident(table_schema) = (parse_ident(" + t + "))[1]\n"
            + "          AND quote_ident(table_name) = (parse_ident(" + t + "))[2]\n"
            + "        ELSE quote_ident(table_name) = " + t + "\n          AND " + SCHEMA_CONSTRAINT + "\n      END";
        final PgCatalog.Answer a = catalog.answer(sql);
        assertThat(a.names()).containsExactly("column", "type");
        assertThat(a.rows()).containsExactly(List.of("time", "timestamp with time zone"), List.of("sym", "character varying"),
            List.of("price", "double precision"), List.of("size", "bigint"), List.of("cond", "character(1)"));
    }

    @Test
    void shouldAnswerGrafanasSchemaVersionAndExtensionProbes() {
        final PgCatalog.Answer schemas = catalog.answer("SELECT schema_name AS \"name\"\n    FROM information_schema.schemata\n"
            + "    WHERE schema_name NOT IN ('information_schema',\n                              'pg_catalog',\n"
            + "                              'pg_toast')\n    ORDER BY schema_name");
        assertThat(schemas.rows()).containsExactly(List.of("public"));
        final PgCatalog.Answer version = catalog.answer("SELECT current_setting('server_version_num')::int/100 as version");
        assertThat(version.names()).containsExactly("version");
        assertThat(version.rows()).containsExactly(List.of("1400"));
        final String timescale = "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'";
        assertThat(PgCatalog.handles(timescale)).isTrue();
        assertThat(catalog.answer(timescale).rows()).isEmpty();
    }
}
