package io.jtick.sql.pg;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of PostgreSQL's catalog that clients ask before they query: the statements psql sends
 * for {@code \dt} and {@code \d trade}, pgJDBC's {@code getTables}/{@code getColumns}, and the
 * {@code information_schema.tables}/{@code columns} queries of query builders (Grafana's), answered
 * from the tables' schemas; {@code version()}, {@code current_schema()} and the like. Any other
 * catalog statement answers no rows (with its columns when they can be read), which is what
 * clients do with a catalog that has no indexes, constraints, policies or inheritance.
 */
final class PgCatalog {
    /** A text answer: column names and rows of text values. */
    record Answer(List<String> names, List<List<String>> rows) {
    }

    static final String VERSION = "PostgreSQL 14.0 (jtick)";
    private static final Pattern RELNAME_REGEX = Pattern.compile("relname\\s+OPERATOR\\(pg_catalog\\.~\\)\\s+'\\^\\((.*?)\\)\\$'");
    private static final Pattern OID = Pattern.compile("(?:c\\.oid|attrelid)\\s*=\\s*'(\\d+)'");
    /** A table named by a condition: {@code relname LIKE 'x'}, {@code table_name = 'x'}, {@code quote_ident(table_name) = ...}. */
    private static final Pattern LIKE = Pattern.compile(
        "(?i)(?:(?:relname|table_name)\\s+(?:LIKE|=)\\s+|quote_ident\\(table_name\\)\\s*=\\s*)E?'([^']*)'");
    private static final int FIRST_OID = 16_384;
    private static final Pattern FROM = Pattern.compile("\\bfrom\\b");
    /** Catalog statements parsed, by text: clients send the same few again and again (read, never changed, so shared). */
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.Optional<PlainSelect>> PARSED =
        new java.util.concurrent.ConcurrentHashMap<>();
    private static final int CACHED = 1024;

    private final Supplier<List<TableSchema>> tables;

    PgCatalog(final Supplier<List<TableSchema>> tables) {
        this.tables = tables;
    }

    /** True for statements the catalog answers rather than the engine. */
    static boolean handles(final String sql) {
        final String s = sql.toLowerCase(Locale.ROOT);
        return s.contains("pg_catalog") || s.contains("information_schema") || s.contains("pg_class") || s.contains("pg_type")
            || s.contains("pg_namespace") || s.contains("pg_settings") || s.contains("pg_database") || s.contains("pg_tables")
            || s.contains("pg_extension")
            || !FROM.matcher(s).find();
    }

    Answer answer(final String sql) {
        final String s = sql.trim();
        final String lower = s.toLowerCase(Locale.ROOT);
        final List<TableSchema> all = tables.get();
        Matcher m = RELNAME_REGEX.matcher(s);
        if (m.find()) {
            // psql \d NAME, first step: which relation
            final List<List<String>> rows = new ArrayList<>();
            final Pattern p = Pattern.compile(m.group(1));
            for (int i = 0; i < all.size(); i++) {
                if (p.matcher(all.get(i).name()).matches()) {
                    rows.add(List.of(String.valueOf(FIRST_OID + i), "public", all.get(i).name()));
                }
            }
            return new Answer(List.of("oid", "nspname", "relname"), rows);
        }
        m = OID.matcher(s);
        if (lower.contains("c.relchecks") && m.find()) {
            // psql \d NAME, second step: the relation's flags (a plain table, nothing attached)
            return new Answer(List.of("relchecks", "relkind", "relhasindex", "relhasrules", "relhastriggers", "relrowsecurity",
                "relforcerowsecurity", "relhasoids", "relispartition", "reloptions", "reltablespace", "reloftype", "relpersistence",
                "relreplident", "amname"), List.of(List.of("0", "r", "f", "f", "f", "f", "f", "f", "f", "", "0", "", "p", "d", "heap")));
        }
        m = OID.matcher(s);
        if (lower.contains("from pg_catalog.pg_attribute a") && m.find()) {
            // psql \d NAME, third step: the columns
            final int i = Integer.parseInt(m.group(1)) - FIRST_OID;
            final List<List<String>> rows = new ArrayList<>();
            if (i >= 0 && i < all.size()) {
                for (final ColumnDef c : all.get(i).columns()) {
                    rows.add(List.of(c.name(), PgTypes.name(ValueType.of(c.type())), "", "f", "", "", ""));
                }
            }
            return new Answer(List.of("attname", "format_type", "default", "attnotnull", "attcollation", "attidentity", "attgenerated"),
                rows);
        }
        if (lower.contains("as \"schema\"") && lower.contains("pg_catalog.pg_class") && lower.contains("as \"name\"")) {
            // psql \dt, \d
            final List<List<String>> rows = new ArrayList<>();
            for (final TableSchema t : all) {
                rows.add(List.of("public", t.name(), "table", "jtick"));
            }
            return new Answer(List.of("Schema", "Name", "Type", "Owner"), rows);
        }
        if (lower.contains("table_schem") && lower.contains("table_type") && lower.contains("pg_class")) {
            // pgJDBC DatabaseMetaData.getTables
            final List<List<String>> rows = new ArrayList<>();
            for (final TableSchema t : matching(all, s)) {
                rows.add(java.util.Arrays.asList(null, "public", t.name(), "TABLE", null, "", "", "", "", ""));
            }
            return new Answer(List.of("table_cat", "table_schem", "table_name", "table_type", "remarks", "type_cat", "type_schem",
                "type_name", "self_referencing_col_name", "ref_generation"), rows);
        }
        if (lower.contains("attnotnull") && lower.contains("atttypid") && lower.contains("typbasetype")) {
            // pgJDBC DatabaseMetaData.getColumns
            final List<List<String>> rows = new ArrayList<>();
            for (final TableSchema t : matching(all, s)) {
                int n = 1;
                for (final ColumnDef c : t.columns()) {
                    final ValueType v = ValueType.of(c.type());
                    rows.add(java.util.Arrays.asList("public", t.name(), c.name(), String.valueOf(PgTypes.oid(v)), "f",
                        String.valueOf(PgTypes.modifier(v)), String.valueOf(PgTypes.size(v)), "-1", String.valueOf(n++), null, null, null,
                        null, "0", "b"));
                }
            }
            return new Answer(List.of("nspname", "relname", "attname", "atttypid", "attnotnull", "atttypmod", "attlen", "typtypmod",
                "attnum", "attidentity", "attgenerated", "adsrc", "description", "typbasetype", "typtype"), rows);
        }
        return generic(s, all);
    }

    private static List<TableSchema> matching(final List<TableSchema> all, final String sql) {
        final Matcher m = LIKE.matcher(sql);
        if (!m.find()) {
            return all;
        }
        final String regex = m.group(1).replace("\\_", "_").replace("%", ".*").replace("_", ".");
        return all.stream().filter(t -> t.name().matches(regex)).toList();
    }

    /**
     * A catalog statement read by its select list: over {@code information_schema.tables} (or any
     * relation listing), a row per table; over {@code information_schema.columns}, a row per column;
     * without FROM, one row of constants and functions; else no rows. Items are looked up by name.
     */
    private Answer generic(final String sql, final List<TableSchema> all) {
        final PlainSelect ps = parse(sql);
        if (ps == null) {
            return new Answer(List.of(), List.of());
        }
        final List<String> names = new ArrayList<>();
        final List<Expression> items = new ArrayList<>();
        for (final SelectItem<?> i : ps.getSelectItems()) {
            items.add(i.getExpression());
            names.add(name(i.getExpression(), i.getAlias()));
        }
        final String from = ps.getFromItem() == null ? "" : ps.getFromItem().toString().toLowerCase(Locale.ROOT);
        final List<Map<String, String>> contexts = new ArrayList<>();
        if (ps.getFromItem() == null) {
            contexts.add(Map.of());
        } else if (from.contains("columns") || from.contains("pg_attribute")) {
            for (final TableSchema t : matching(all, sql)) {
                int n = 1;
                for (final ColumnDef c : t.columns()) {
                    final Map<String, String> x = table(t);
                    final ValueType v = ValueType.of(c.type());
                    x.put("column_name", c.name());
                    x.put("attname", c.name());
                    x.put("data_type", PgTypes.name(v));
                    x.put("udt_name", PgTypes.name(v));
                    x.put("ordinal_position", String.valueOf(n));
                    x.put("attnum", String.valueOf(n++));
                    x.put("is_nullable", "YES");
                    x.put("atttypid", String.valueOf(PgTypes.oid(v)));
                    contexts.add(x);
                }
            }
        } else if (from.contains("schemata") || from.contains("pg_namespace")) {
            contexts.add(Map.of("schema_name", "public", "nspname", "public", "catalog_name", "jtick", "schema_owner", "jtick"));
        } else if (from.contains("tables") || from.contains("pg_class") || from.contains("pg_tables")) {
            for (final TableSchema t : matching(all, sql)) {
                contexts.add(table(t));
            }
        }
        final List<List<String>> rows = new ArrayList<>();
        for (final Map<String, String> c : contexts) {
            final List<String> row = new ArrayList<>();
            for (final Expression e : items) {
                row.add(value(e, c));
            }
            rows.add(row);
        }
        return new Answer(names, rows);
    }

    /** The statement as one SELECT, or null (not a SELECT, or not parsed). */
    private static PlainSelect parse(final String sql) {
        java.util.Optional<PlainSelect> p = PARSED.get(sql);
        if (p == null) {
            try {
                // on this thread: CCJSqlParserUtil.parse(String) hands each statement to a new executor thread (a timeout guard)
                final var st = CCJSqlParserUtil.newParser(sql).Statement();
                p = java.util.Optional.ofNullable(st instanceof PlainSelect ps ? ps : null);
            } catch (final Exception e) {
                p = java.util.Optional.empty();
            }
            if (PARSED.size() >= CACHED) {
                PARSED.clear();
            }
            PARSED.put(sql, p);
        }
        return p.orElse(null);
    }

    private static Map<String, String> table(final TableSchema t) {
        final Map<String, String> x = new LinkedHashMap<>();
        x.put("table_name", t.name());
        x.put("relname", t.name());
        x.put("tablename", t.name());
        x.put("table_schema", "public");
        x.put("schemaname", "public");
        x.put("nspname", "public");
        x.put("table_catalog", "jtick");
        x.put("table_type", "BASE TABLE");
        x.put("relkind", "r");
        return x;
    }

    private static String value(final Expression e, final Map<String, String> c) {
        if (e instanceof Column col) {
            final String n = col.getColumnName().toLowerCase(Locale.ROOT).replace("\"", "");
            return switch (n) {
                case "current_catalog" -> "jtick";
                case "current_schema" -> "public";
                case "current_user", "session_user", "user" -> "jtick";
                default -> c.get(n);
            };
        }
        if (e instanceof StringValue s) {
            return s.getValue();
        }
        if (e instanceof LongValue l) {
            return String.valueOf(l.getValue());
        }
        if (e instanceof NullValue) {
            return null;
        }
        if (e instanceof CastExpression cast) {
            return value(cast.getLeftExpression(), c);
        }
        if (e instanceof CaseExpression k && k.getWhenClauses() != null && !k.getWhenClauses().isEmpty()) {
            // Grafana's "CASE WHEN the schema is on the search path THEN name ELSE schema.name": every table is in public, on it
            return value(k.getWhenClauses().get(0).getThenExpression(), c);
        }
        if (e instanceof Division d) {
            // current_setting('server_version_num')::int/100, Grafana's version probe
            final String a = value(d.getLeftExpression(), c);
            final String b = value(d.getRightExpression(), c);
            try {
                return a == null || b == null ? null : String.valueOf(Long.parseLong(a) / Long.parseLong(b));
            } catch (final NumberFormatException | ArithmeticException x) {
                return null;
            }
        }
        if (e instanceof Function f) {
            switch (f.getName().toLowerCase(Locale.ROOT).replace("pg_catalog.", "")) {
                case "version":
                    return VERSION;
                case "current_schema":
                    return "public";
                case "current_database":
                    return "jtick";
                case "current_user":
                case "session_user":
                    return "jtick";
                case "current_setting":
                    return f.getParameters() == null || f.getParameters().isEmpty() ? null
                        : setting(value((Expression) f.getParameters().get(0), c));
                case "quote_ident":
                    return f.getParameters() == null || f.getParameters().isEmpty() ? null
                        : value((Expression) f.getParameters().get(0), c);
                default:
                    return null;
            }
        }
        final String s = e.toString().toLowerCase(Locale.ROOT);
        if (s.equals("current_schema") || s.equals("current_user") || s.equals("session_user")) {
            return s.equals("current_schema") ? "public" : "jtick";
        }
        return null;
    }

    /** The settings a catalog statement reads through {@code current_setting}: the server's, as ParameterStatus gives them. */
    private static String setting(final String name) {
        return name == null ? null : switch (name.toLowerCase(Locale.ROOT)) {
            case "server_version_num" -> "140000";
            case "server_version" -> "14.0";
            case "search_path" -> "\"$user\", public";
            case "timezone" -> "UTC";
            case "server_encoding", "client_encoding" -> "UTF8";
            default -> null;
        };
    }

    private static String name(final Expression e, final Alias alias) {
        if (alias != null) {
            final String a = alias.getName();
            return a.startsWith("\"") ? a.substring(1, a.length() - 1) : a.toLowerCase(Locale.ROOT);
        }
        if (e instanceof Column c) {
            return c.getColumnName().toLowerCase(Locale.ROOT);
        }
        if (e instanceof Function f) {
            final String n = f.getName().toLowerCase(Locale.ROOT);
            return n.substring(n.lastIndexOf('.') + 1);
        }
        return "?column?";
    }
}
