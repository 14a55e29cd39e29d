-- The few SQLite functions that formsvc's queries call, defined on PostgreSQL under the same names and with
-- the same meaning, so that one query text runs on both engines (docs/scaling.md, "How the same code runs").
-- json_each over a JSON array or object: one row per element in the document's order, `key` its index (a
-- number, as text padded to sort as one) or name, `value` the element (a string as itself, anything else as
-- JSON text), `id` its place in the document.
CREATE FUNCTION json_each(document text) RETURNS TABLE (key text, value text, id bigint) LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE json_typeof(j.d) WHEN 'array' THEN lpad((e.n - 1)::text, 10, '0') ELSE e.k END,
		CASE json_typeof(e.v) WHEN 'string' THEN e.v #>> '{}' ELSE e.v::text END,
		e.n
	FROM (SELECT document::json AS d) AS j
	CROSS JOIN LATERAL (
		SELECT NULL::text AS k, a.v, a.n FROM json_array_elements(CASE json_typeof(j.d) WHEN 'array' THEN j.d ELSE '[]'::json END) WITH ORDINALITY AS a(v, n)
		UNION ALL
		SELECT o.k, o.v, o.n FROM json_each(CASE json_typeof(j.d) WHEN 'object' THEN j.d ELSE '{}'::json END) WITH ORDINALITY AS o(k, v, n)
	) AS e
$$;
--> statement-breakpoint
-- json_tree's leaves (strings, numbers, booleans): `atom` as SQLite gives it.
CREATE FUNCTION json_tree(document text) RETURNS TABLE (atom text) LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' ELSE v::text END
	FROM jsonb_path_query(document::jsonb, 'strict $.**') AS v
	WHERE jsonb_typeof(v) NOT IN ('object', 'array', 'null')
$$;
--> statement-breakpoint
-- json_extract of one path of the form $[n] or $.name: a string as itself.
CREATE FUNCTION json_extract(document text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' ELSE v::text END
	FROM (SELECT jsonb_path_query_first(document::jsonb, path::jsonpath) AS v) AS x
$$;
--> statement-breakpoint
-- The 1-based position of `needle` in `haystack`, 0 when absent.
CREATE FUNCTION instr(haystack text, needle text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(haystack, needle) $$;
--> statement-breakpoint
-- SQLite's two-argument max and min: the larger or smaller of two numbers.
CREATE FUNCTION max(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(a, b) $$;
--> statement-breakpoint
CREATE FUNCTION min(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT least(a, b) $$;
--> statement-breakpoint
-- The same of a sum (numeric on PostgreSQL).
CREATE FUNCTION max(a numeric, b numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$ SELECT greatest(a, b) $$;
--> statement-breakpoint
CREATE FUNCTION min(a numeric, b numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$ SELECT least(a, b) $$;
--> statement-breakpoint
-- json_group_array of text values: a JSON array as text.
CREATE FUNCTION json_group_array_final(items text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(array_to_json(items)::text, '[]') $$;
--> statement-breakpoint
CREATE AGGREGATE json_group_array(text) (SFUNC = array_append, STYPE = text[], FINALFUNC = json_group_array_final, INITCOND = '{}');
--> statement-breakpoint
-- CAST(x AS INTEGER) as SQLite reads it: the whole number a text starts with, 0 when it starts with none.
CREATE FUNCTION sqlite_integer(value text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(substring(value FROM '^\s*[-+]?[0-9]+')::bigint, 0)
$$;
--> statement-breakpoint
-- A left shift whose count is a bigint (SQLite's integers are all 64 bits wide).
CREATE FUNCTION sqlite_shift_left(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT a << b::integer $$;
--> statement-breakpoint
CREATE OPERATOR << (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = sqlite_shift_left);
--> statement-breakpoint
CREATE FUNCTION sqlite_shift_left(a integer, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT a::bigint << b::integer $$;
--> statement-breakpoint
CREATE OPERATOR << (LEFTARG = integer, RIGHTARG = bigint, FUNCTION = sqlite_shift_left);
