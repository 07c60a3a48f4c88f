-- A batch's point, read back (1.2): what the study views, grids, charts,
-- profiles, the report and ranread_latency_target_verdict take of
-- ranread_batches.point.  A point is checked before its batch runs
-- (src/workload/point.c: a study's {"n", coordinates} or a search's window, each
-- value of its type and range); a row of 1.1, whose points nothing
-- checked, may hold anything.  So no reader casts a key of a point
-- itself: it reads a number through these functions, which give NULL for
-- what is not one, and skips a batch whose point is not a study's (or a
-- window's), saying so, rather than failing for everyone on one row.

-- A JSON number that is an integer from lo to hi, as bigint (what
-- src/workload/point.c takes: no fraction, as jsonb prints it); NULL for anything
-- else.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_json_int(v jsonb, lo bigint, hi bigint)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number'
                     AND (v #>> '{}') OPERATOR(pg_catalog.~) '^-?[0-9]{1,18}$'
                THEN CASE WHEN (v #>> '{}')::bigint BETWEEN lo AND hi THEN (v #>> '{}')::bigint END END
$$;

-- A JSON number that a float8 holds (0, or 1e-300 to 1e300 either way),
-- as float8; NULL for anything else.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_json_float(v jsonb)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number'
                THEN CASE WHEN pg_catalog.abs((v #>> '{}')::numeric) OPERATOR(pg_catalog.=) 0
                            OR pg_catalog.abs((v #>> '{}')::numeric) BETWEEN 1e-300 AND 1e300
                          THEN (v #>> '{}')::float8 END END
$$;

-- Is it a study's point, as its readers take it: an object with its
-- number n (1 or more) and every integer coordinate (processes,
-- queue_depth, block_size, write_pct, small, large, pass) an integer that
-- an integer column holds?  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_point_ok(point jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(point) OPERATOR(pg_catalog.=) 'object' THEN
               ranread_internal.ranread_json_int(point -> 'n', 1, 2147483647) IS NOT NULL
               AND NOT EXISTS (SELECT FROM pg_catalog.jsonb_each(point) e
                                WHERE e.key OPERATOR(pg_catalog.=) ANY (ARRAY['processes', 'queue_depth', 'block_size',
                                                                               'write_pct', 'small', 'large', 'pass'])
                                  AND ranread_internal.ranread_json_int(e.value, 0, 2147483647) IS NULL)
           ELSE false END
$$;

-- Is it a window of a latency-target search, as
-- ranread_latency_target_verdict takes it: the search's id an integer,
-- the window's step, load and max_load integers (1 or more), the dimension searched,
-- target_ms a number above 0 and percentile one between 0 and 100?  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_window_ok(point jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(point) OPERATOR(pg_catalog.=) 'object' THEN
               ranread_internal.ranread_json_int(point -> 'latency_target', -9223372036854775807, 9223372036854775807) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'step', 1, 2147483647) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'load', 1, 2147483647) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'max_load', 1, 2147483647) IS NOT NULL
               AND coalesce(ranread_internal.ranread_json_float(point -> 'target_ms') OPERATOR(pg_catalog.>) 0, false)
               AND coalesce(ranread_internal.ranread_json_float(point -> 'percentile') OPERATOR(pg_catalog.>) 0
                            AND ranread_internal.ranread_json_float(point -> 'percentile') OPERATOR(pg_catalog.<) 100, false)
               AND coalesce((point ->> 'dimension') OPERATOR(pg_catalog.=) ANY (ARRAY['queue_depth', 'processes']), false)
           ELSE false END
$$;

-- How a reader says what it skipped: 'skipped: N batch(es) ...what', or
-- NULL for none.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_skipped(n bigint, what text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN n OPERATOR(pg_catalog.>) 0 THEN
               pg_catalog.format('skipped: %s %s %s', n,
                                 CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN 'batch' ELSE 'batches' END, what) END
$$;
