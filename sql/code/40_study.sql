-- 1.1, studies: a grid of runs in one call (ranread_study), the rules that
-- lay the grid out and end a row early (pure functions, tested on known
-- numbers), and the executor that runs a list of points as batches of one
-- study, which the profiles (42_profile.sql) use too.  Its table, sequence
-- and type are in 39_study_tables.sql, so that an upgrade script may
-- include this file whole.
--
-- What survives what: every point is a batch, recorded by its own worker
-- with the study's id and the point's coordinates (ranread_batches.study and
-- .point), so a study that is stopped or cancelled keeps every finished
-- point.  The row of ranread_studies (the definition, the exact call, why it
-- ended) is written by the caller when the study returns, in its
-- transaction: a cancelled study has none, and everything that reads a
-- study (41_study_views.sql) works from the batches alone.

-- The checks of a matrix mode and the loads it needs, for
-- ranread_study_matrix and ranread_study_matrix_count.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix_check(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    need  text;
BEGIN
    IF matrix IS NULL OR matrix NOT IN ('basic', 'detailed', 'row', 'col', 'point', 'max') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid matrix %s for ranread_study', coalesce(quote_literal(matrix), 'NULL')),
            HINT = 'matrix is one of ORION''s modes: basic, detailed, row, col, point or max.';
    END IF;

    need := CASE
        WHEN matrix = 'basic' AND small IS NULL AND large IS NULL THEN 'small or large loads'
        WHEN matrix IN ('detailed', 'max') AND (small IS NULL OR large IS NULL) THEN 'both small and large loads'
        WHEN matrix = 'row' AND small IS NULL THEN 'small loads'
        WHEN matrix = 'col' AND large IS NULL THEN 'large loads'
        WHEN matrix = 'point' AND (num_small IS NULL OR num_large IS NULL) THEN 'num_small and num_large'
    END;
    IF need IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('matrix %s of ranread_study needs %s', matrix, need),
            HINT = 'A matrix is a mix of small random I/O (small => ''{1,2,4}'') and large I/O (large => ''{0,1,2}''): give the loads the mode varies.';
    END IF;
    IF (num_small IS NOT NULL AND matrix NOT IN ('col', 'point', 'max'))
       OR (num_large IS NOT NULL AND matrix NOT IN ('row', 'point', 'max')) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s does not apply to matrix %s of ranread_study',
                             CASE WHEN num_small IS NOT NULL AND matrix NOT IN ('col', 'point', 'max')
                                  THEN 'num_small' ELSE 'num_large' END, matrix),
            HINT = 'num_small fixes the small load of matrix col, point and max; num_large the large load of row, point and max.';
    END IF;
END
$$;

-- The points a matrix mode selects from the small and large loads, as ORION
-- does: columns are small loads, rows large loads, ordered row by row.
--   basic     the small loads alone (large 0) and the large loads alone (small 0)
--   detailed  every combination
--   row       the small loads at large = num_large (0 unless given)
--   col       the large loads at small = num_small (0 unless given)
--   point     the one point (num_small, num_large)
--   max       the small loads at the largest large load and the large loads
--             at the largest small load (num_large, num_small replace them)
-- A point with no load at all (0, 0) is never selected.  Pure; errors name
-- the mode and what it lacks.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS TABLE (small_load integer, large_load integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s_max integer;
    l_max integer;
BEGIN
    PERFORM ranread_internal.ranread_study_matrix_check(matrix, small, large, num_small, num_large);

    s_max := coalesce(num_small, (SELECT max(v) FROM unnest(small) v));
    l_max := coalesce(num_large, (SELECT max(v) FROM unnest(large) v));

    RETURN QUERY
    SELECT DISTINCT ON (p.l, p.s) p.s, p.l
      FROM (SELECT s.v AS s, 0 AS l FROM unnest(small) s(v) WHERE matrix = 'basic'
            UNION ALL
            SELECT 0, l.v FROM unnest(large) l(v) WHERE matrix = 'basic'
            UNION ALL
            SELECT s.v, l.v FROM unnest(small) s(v), unnest(large) l(v) WHERE matrix = 'detailed'
            UNION ALL
            SELECT s.v, coalesce(num_large, 0) FROM unnest(small) s(v) WHERE matrix = 'row'
            UNION ALL
            SELECT coalesce(num_small, 0), l.v FROM unnest(large) l(v) WHERE matrix = 'col'
            UNION ALL
            SELECT num_small, num_large WHERE matrix = 'point'
            UNION ALL
            SELECT s.v, l_max FROM unnest(small) s(v) WHERE matrix = 'max'
            UNION ALL
            SELECT s_max, l.v FROM unnest(large) l(v) WHERE matrix = 'max') p
     WHERE p.s > 0 OR p.l > 0
     ORDER BY p.l, p.s;
END
$$;

-- How many points ranread_study_matrix selects, worked out from the sizes
-- of the loads rather than by listing them, so that a study can refuse a
-- grid past its limit before it builds any of it.  The loads hold no
-- repeats (ranread_study checks them); (0, 0) is never a point.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix_count(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ns     bigint := coalesce(cardinality(small), 0);
    nl     bigint := coalesce(cardinality(large), 0);
    zs     boolean := coalesce(0 = ANY (small), false);
    zl     boolean := coalesce(0 = ANY (large), false);
    s_max  integer;
    l_max  integer;
BEGIN
    PERFORM ranread_internal.ranread_study_matrix_check(matrix, small, large, num_small, num_large);
    CASE matrix
        WHEN 'basic' THEN
            RETURN ns - zs::integer + nl - zl::integer;
        WHEN 'detailed' THEN
            RETURN ns * nl - (zs AND zl)::integer;
        WHEN 'row' THEN
            RETURN ns - (zs AND coalesce(num_large, 0) = 0)::integer;
        WHEN 'col' THEN
            RETURN nl - (zl AND coalesce(num_small, 0) = 0)::integer;
        WHEN 'point' THEN
            RETURN 1 - (num_small = 0 AND num_large = 0)::integer;
        ELSE
            -- max: (s, l_max) for s in small, (s_max, l) for l in large
            s_max := coalesce(num_small, (SELECT max(v) FROM unnest(small) v));
            l_max := coalesce(num_large, (SELECT max(v) FROM unnest(large) v));
            RETURN ns + nl
                   - (s_max = ANY (small) AND l_max = ANY (large))::integer
                   - ((zs AND l_max = 0) OR (s_max = 0 AND zl))::integer;
    END CASE;
END
$$;

-- The points of a grid: the product of the dimensions' values, outermost
-- first in the order region, pattern, distribution, block_size, write_pct,
-- queue_depth, then the load (processes, or the matrix's large and small
-- loads), innermost.  dims maps a dimension to its array of values; the
-- matrix pairs come from ranread_study_matrix.  Each point is the object of
-- its coordinates in every dimension given.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_grid_points(
    dims       jsonb,
    matrix     text    DEFAULT NULL,
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS TABLE (n integer, point jsonb)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    outer_dims constant text[] := ARRAY['region', 'pattern', 'distribution', 'block_size',
                                        'write_pct', 'queue_depth', 'processes'];
    pts   jsonb[] := ARRAY['{}'::jsonb];
    nxt   jsonb[];
    d     text;
    pair  record;
    p     jsonb;
    v     jsonb;
BEGIN
    FOREACH d IN ARRAY outer_dims LOOP
        CONTINUE WHEN dims -> d IS NULL OR jsonb_typeof(dims -> d) = 'null';
        nxt := '{}';
        FOREACH p IN ARRAY pts LOOP
            FOR v IN SELECT e FROM jsonb_array_elements(dims -> d) WITH ORDINALITY x(e, i) ORDER BY i LOOP
                nxt := nxt || (p || jsonb_build_object(d, v));
            END LOOP;
        END LOOP;
        pts := nxt;
    END LOOP;

    IF dims ? 'small' OR dims ? 'large' OR matrix IS NOT NULL THEN
        nxt := '{}';
        FOREACH p IN ARRAY pts LOOP
            FOR pair IN
                SELECT * FROM ranread_internal.ranread_study_matrix(
                    coalesce(matrix, 'basic'),
                    CASE WHEN jsonb_typeof(dims -> 'small') = 'array'
                         THEN ARRAY(SELECT e::integer FROM jsonb_array_elements_text(dims -> 'small') e) END,
                    CASE WHEN jsonb_typeof(dims -> 'large') = 'array'
                         THEN ARRAY(SELECT e::integer FROM jsonb_array_elements_text(dims -> 'large') e) END,
                    num_small, num_large)
            LOOP
                nxt := nxt || (p || jsonb_build_object('large', pair.large_load, 'small', pair.small_load));
            END LOOP;
        END LOOP;
        pts := nxt;
    END IF;

    RETURN QUERY SELECT i::integer, e FROM unnest(pts) WITH ORDINALITY x(e, i);
END
$$;

-- The early end of a row: the average latencies of a row's points so far,
-- in order; true when the last two are both above the bound (the sweep's
-- latency rule).  NULL latencies (not measured) never end a row.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_row_ended(avg_ms float8[], max_avg_ms float8)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(cardinality(avg_ms) >= 2
                    AND avg_ms[cardinality(avg_ms)] > max_avg_ms
                    AND avg_ms[cardinality(avg_ms) - 1] > max_avg_ms, false)
$$;

-- How a value of a dimension reads in a legend or a row label: 10% writes,
-- 8 KiB, QD 32, 16 processes, region 0-40%, small 4 ...  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_label(dim text, value jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN value IS NULL OR jsonb_typeof(value) = 'null' THEN dim || ' n/a'
        WHEN dim = 'write_pct' THEN (value #>> '{}') || '% writes'
        WHEN dim = 'block_size' AND jsonb_typeof(value) = 'number' THEN
            CASE WHEN (value #>> '{}')::bigint % 1048576 = 0 THEN ((value #>> '{}')::bigint / 1048576) || ' MiB'
                 WHEN (value #>> '{}')::bigint % 1024 = 0 THEN ((value #>> '{}')::bigint / 1024) || ' KiB'
                 ELSE (value #>> '{}') || ' B' END
        WHEN dim = 'queue_depth' THEN 'QD ' || (value #>> '{}')
        WHEN dim = 'processes' THEN (value #>> '{}') || CASE WHEN value #>> '{}' = '1' THEN ' process' ELSE ' processes' END
        WHEN dim = 'region' THEN 'region ' || (value #>> '{}') || '%'
        WHEN dim IN ('small', 'large') THEN dim || ' ' || (value #>> '{}')
        ELSE value #>> '{}'
    END
$$;

-- The axes of a study from its points (their coordinates, as recorded in
-- ranread_batches.point): the dimension along the columns and those that
-- make the rows.  Columns: the one asked for, else the small load of a
-- matrix (as ORION's grids), else the first that varies of small,
-- processes, queue_depth, block_size, write_pct, region, pattern,
-- distribution, mode, test.  Rows: every other dimension that varies, and a
-- matrix's large load always, outermost first.  'n' (the point's number) and
-- 'pass' (a profile's repeated passes) are never axes.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_axes(
    points   jsonb[],
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_grid',
    OUT column_dim text,
    OUT row_dims   text[])
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    col_order constant text[] := ARRAY['small', 'processes', 'queue_depth', 'block_size', 'write_pct',
                                       'region', 'pattern', 'distribution', 'mode', 'test'];
    row_order constant text[] := ARRAY['large', 'test', 'region', 'pattern', 'distribution', 'block_size',
                                       'write_pct', 'queue_depth', 'processes', 'mode', 'small'];
    dims  text[];
BEGIN
    SELECT array_agg(k.key ORDER BY coalesce(array_position(col_order, k.key), 99), k.key)
      INTO dims
      FROM (SELECT DISTINCT e.key FROM unnest(points) p, jsonb_each(p) e
             WHERE e.key NOT IN ('n', 'pass')) k;

    IF columns IS NOT NULL THEN
        IF NOT (columns = ANY (coalesce(dims, '{}'))) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('unknown dimension "%s" for columns of %s', columns, fn),
                HINT = CASE WHEN dims IS NULL THEN 'The study has no points.'
                            ELSE format('The dimensions of this study are %s.', array_to_string(dims, ', ')) END;
        END IF;
        column_dim := columns;
    ELSIF 'small' = ANY (dims) THEN
        column_dim := 'small';
    ELSE
        SELECT d INTO column_dim
          FROM unnest(dims) WITH ORDINALITY x(d, i)
         WHERE (SELECT count(DISTINCT p -> d) FROM unnest(points) p) > 1
         ORDER BY i LIMIT 1;
        column_dim := coalesce(column_dim, dims[1]);
    END IF;

    SELECT coalesce(array_agg(d ORDER BY coalesce(array_position(row_order, d), 99), d), '{}')
      INTO row_dims
      FROM unnest(dims) d
     WHERE d IS DISTINCT FROM column_dim
       AND ((SELECT count(DISTINCT p -> d) FROM unnest(points) p) > 1
            OR (d = 'large' AND 'small' = ANY (dims)));
END
$$;

-- A point's row label: its values in the row dimensions, as legends say
-- them ('all points' when nothing but the columns varies).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_row_label(point jsonb, row_dims text[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(string_agg(ranread_internal.ranread_study_label(d, point -> d), ', ' ORDER BY i),
                    'all points')
      FROM unnest(row_dims) WITH ORDINALITY x(d, i)
$$;

-- A value of a text dimension of a study in one spelling, so that values
-- that differ only in spelling make one point: a region as START-END with
-- the numbers written plainly ('0-100.0' is '0-100'), a pattern in lower
-- case, a distribution in lower case with its numbers written plainly
-- ('zipf:1.20' is 'zipf:1.2', 'UNIFORM' is 'uniform').  A value none of
-- these spellings fits is returned as it is, for the checks to refuse.
-- Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_normalize(dim text, value text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    num constant text := '([+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?)';
    m   text[];
    v   text := lower(value);
BEGIN
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF dim = 'region' THEN
        m := regexp_match(value, '^\s*([0-9]+(?:\.[0-9]+)?)\s*-\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$');
        IF m IS NOT NULL THEN
            RETURN trim_scale(m[1]::numeric)::text || '-' || trim_scale(m[2]::numeric)::text;
        END IF;
    ELSIF dim = 'pattern' THEN
        IF v IN ('random', 'sequential') THEN
            RETURN v;
        END IF;
    ELSIF dim = 'distribution' THEN
        IF v = 'uniform' THEN
            RETURN v;
        END IF;
        m := regexp_match(v, '^(zipf|pareto):' || num || '$');
        IF m IS NOT NULL THEN
            RETURN m[1] || ':' || trim_scale(m[2]::numeric)::text;
        END IF;
        m := regexp_match(v, '^hotset:' || num || '/' || num || '$');
        IF m IS NOT NULL THEN
            RETURN 'hotset:' || trim_scale(m[1]::numeric)::text || '/' || trim_scale(m[2]::numeric)::text;
        END IF;
    END IF;
    RETURN value;
END
$$;

-- A value as a study's errors print it: whole up to 64 characters, else
-- its first 64 and "...", so that an error about a huge input says which
-- input without repeating it (src/workload/params.c bounds the parser's alike).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_shown(value text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN length(value) <= 64 THEN value ELSE left(value, 64) || '...' END
$$;

-- The values of an integer dimension of ranread_study, checked: not empty,
-- no NULL, no repeats, each within lo..hi.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_ints(
    arg text, vals integer[], lo integer, hi integer, what text, fn text DEFAULT 'ranread_study')
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad integer;
BEGIN
    IF vals IS NULL THEN
        RETURN;
    END IF;
    IF cardinality(vals) = 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid %s {} for %s: an empty array', arg, fn),
            HINT = format('%s is an array of %s, such as ''{1,2,4}''; leave it out to keep the default.', arg, what);
    END IF;
    IF array_position(vals, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('%s of %s must not contain NULL: element %s is', arg, fn, array_position(vals, NULL)),
            HINT = format('%s is an array of %s, such as ''{1,2,4}''.', arg, what);
    END IF;
    SELECT v INTO bad FROM unnest(vals) v WHERE v < lo OR v > hi LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid %s %s for %s', arg, bad, fn),
            HINT = format('Each of %s is %s: %s to %s.', arg, what, lo, hi);
    END IF;
    SELECT v INTO bad FROM unnest(vals) v GROUP BY v HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s repeats %s', arg, fn, bad),
            HINT = 'Give each value once: a repeated value would run the same point twice.';
    END IF;
END
$$;

-- The options of one group, checked as a batch of that group checks them
-- (the target, the block size and its alignment, pattern, region,
-- distribution), before any runs; errors name fn.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_group(g jsonb, fn text)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_spec_check(jsonb_build_object('caller', fn,
               'groups', jsonb_build_array(jsonb_build_object('processes', 1) || g)), true)
$$;

-- The groups of a point's batch: one group with the point's options (its
-- coordinates that are options, its region as region_start and
-- region_end), or for a matrix point ORION's two, "small" (that many
-- processes of small_size random I/O at queue depth 1) and "large" (that
-- many streams of large_size I/O, random or sequential), a load of 0
-- leaving its group out.  What a point does not name takes its default
-- (ranread_options), one process without a processes dimension.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_groups(
    point          jsonb,
    target         name,
    small_size     integer DEFAULT 8192,
    large_size     integer DEFAULT 1048576,
    large_pattern  text    DEFAULT 'random')
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH g AS (
        SELECT ranread_internal.ranread_defaults('group') || jsonb_build_object('processes', 1, 'target', target)
               || coalesce((SELECT jsonb_object_agg(e.key, e.value)
                              FROM jsonb_each(point) e
                              JOIN @extschema@.ranread_options() o ON o.name = e.key
                             WHERE o.level <> 'batch' AND NOT o.internal AND e.key <> 'target'), '{}')
               || CASE WHEN point ? 'region' THEN jsonb_build_object(
                      'region_start', split_part(replace(point ->> 'region', '%', ''), '-', 1)::float8,
                      'region_end', split_part(replace(point ->> 'region', '%', ''), '-', 2)::float8)
                  ELSE '{}' END AS base)
    SELECT CASE WHEN point ? 'small' OR point ? 'large' THEN
               coalesce((SELECT jsonb_agg(x ORDER BY k)
                           FROM (SELECT 1 AS k, g.base || jsonb_build_object('label', 'small',
                                        'processes', (point ->> 'small')::integer, 'block_size', small_size,
                                        'queue_depth', 1, 'pattern', 'random') AS x
                                  WHERE coalesce((point ->> 'small')::integer, 0) > 0
                                 UNION ALL
                                 SELECT 2, g.base || jsonb_build_object('label', 'large',
                                        'processes', (point ->> 'large')::integer, 'block_size', large_size,
                                        'queue_depth', 1, 'pattern', large_pattern)
                                  WHERE coalesce((point ->> 'large')::integer, 0) > 0) s), '[]')
           ELSE jsonb_build_array(g.base) END
      FROM g
$$;

-- One point of a study run: its batch (the study's workload, the point's
-- groups and coordinates, its own duration and warmup where it has them),
-- its row, and a NOTICE of its figures and the time left (the I/O of the
-- points to come, and for each the time between points measured so far).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_point(
    res @extschema@.ranread_study_result, p jsonb, spec jsonb, fn text,
    total integer, planned float8[], started timestamptz, measured float8, n_done integer,
    column_dim text)
RETURNS @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r        ranread_internal.ranread_step_result;
    overhead float8;
    left_s   float8;
BEGIN
    -- where the study is, for ranread_progress and the point's progress
    -- line: the points after this one, as the NOTICE below counts them
    overhead := CASE WHEN n_done > 1
                     THEN greatest(extract(epoch FROM clock_timestamp() - started)::float8
                                   - (measured - planned[res.n]), 0) / (n_done - 1)
                     ELSE 0 END;
    PERFORM ranread_internal.ranread_progress_call('study', res.study, 'starting point', res.n, total,
        coalesce((SELECT sum(v) FROM unnest(planned[res.n + 1:]) v), 0) + overhead * (total - res.n));

    -- each group of the point, with the group options every point shares
    -- (the study's own scalar arguments, such as verify: never one of its
    -- dimensions, which are arrays)
    SELECT * INTO r
      FROM @extschema@.ranread_run_step(ranread_internal.ranread_spec(jsonb_build_object(
               'study', res.study, 'point', res.point,
               'groups', (SELECT jsonb_agg(g || COALESCE(spec -> 'groups' -> 0, '{}') ORDER BY k)
                            FROM jsonb_array_elements(p -> 'groups') WITH ORDINALITY x(g, k)),
               'duration', p -> 'duration', 'warmup', p -> 'warmup'), spec)) g
     WHERE g.grp = 0;
    res.batch := r.batch;
    res.iops := r.iops;
    res.mbps := r.mbps;
    res.avg_ms := r.avg_ms;
    res.p99_ms := r.p99_ms;
    res.max_ms := r.max_ms;
    res.status := r.status;

    overhead := greatest(extract(epoch FROM clock_timestamp() - started)::float8 - measured, 0) / n_done;
    left_s := coalesce((SELECT sum(v) FROM unnest(planned[res.n + 1:]) v), 0) + overhead * (total - res.n);
    RAISE NOTICE '% % point % of % (%): % IOPS, % MiB/s, avg % ms, p99 % ms%; % left, done at about %',
        fn, res.study, res.n, total,
        CASE WHEN res.row_label = 'all points' THEN '' ELSE res.row_label || ', ' END
            || ranread_internal.ranread_study_label(column_dim, p -> 'point' -> column_dim),
        coalesce(round(r.iops::numeric)::text, 'n/a'),
        coalesce(round(r.mbps::numeric, 1)::text, 'n/a'),
        coalesce(round(r.avg_ms::numeric, 3)::text, 'n/a'),
        coalesce(round(r.p99_ms::numeric, 3)::text, 'n/a'),
        CASE WHEN r.status <> 'completed' THEN ', ' || r.status ELSE '' END,
        to_char(make_interval(secs => left_s), 'HH24:MI:SS'),
        to_char(clock_timestamp() + make_interval(secs => left_s), 'HH24:MI:SS');
    RETURN res;
END
$$;

-- A study that returned: its row in ranread_studies, and the NOTICE of
-- how it went.  It runs as the extension's owner (SECURITY DEFINER), so
-- that no role needs INSERT on ranread_studies, where a row of its own
-- making could take the id the next study will take or say what no batch
-- ran.  The row recorded is that of the study this session runs now in
-- this transaction (the id it took and registered, ranread_call_register),
-- started by the role that registered it, at the time it did; what it
-- says of the points comes from the history, never from the caller: the
-- batches that carry the study's id (which only this call can give a
-- batch: src/history/calls.c, src/workload/workload.c) and a study's point (12_points.sql),
-- started by that role: the points run and completed, the target, why the
-- study ended early (its first point that did not complete), the best
-- point.  The caller says only what no batch can: the study's kind, call
-- and definition (checked for their form), how many points it planned and
-- skipped (at least the points run, in all), its bound (a finite number
-- above 0, or none).  A study with no point in the history is not
-- recorded: a WARNING says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_record(
    study_id bigint, kind text, fn text, call text, definition jsonb, planned integer, skipped integer,
    max_avg_ms float8, started timestamptz, measured float8, column_dim text, row_dims text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    reg    record;
    runs   record;
    first_bad record;
    best   record;
    reason text;
BEGIN
    SELECT c.started_by, c.started_at INTO reg
      FROM ranread_internal.ranread_running_calls() c
     WHERE c.kind OPERATOR(pg_catalog.=) 'study' AND c.id OPERATOR(pg_catalog.=) study_id
       AND c.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid();
    IF NOT FOUND OR reg.started_by IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('study %s of ranread_study_record is not the study this session runs now',
                             coalesce(study_id::text, 'NULL')),
            HINT = 'A study''s row is recorded by the ranread_study or ranread_profile call that took its id, when it returns.';
    END IF;
    IF max_avg_ms IS NOT NULL AND NOT (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_study_record', max_avg_ms),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, or NULL.';
    END IF;
    IF fn IS NULL OR fn NOT IN ('ranread_study', 'ranread_profile')
       OR kind IS DISTINCT FROM (CASE WHEN fn = 'ranread_study' THEN 'study'
                                      WHEN kind = ANY (ranread_internal.ranread_profile_names()) THEN kind END)
       OR call IS NULL OR NOT starts_with(call, 'SELECT * FROM ' || fn || '(') OR octet_length(call) > 65536
       OR jsonb_typeof(definition) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid kind %s, fn %s or call of ranread_study_record',
                             coalesce(quote_literal(left(kind, 64)), 'NULL'), coalesce(quote_literal(left(fn, 64)), 'NULL')),
            HINT = 'A study is recorded by ranread_study (kind ''study'') or ranread_profile (kind the profile''s name), with its call and definition.';
    END IF;

    SELECT count(*) AS run, count(*) FILTER (WHERE b.status OPERATOR(pg_catalog.=) 'completed') AS completed,
           min(b.target) AS target
      INTO runs
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point);
    IF runs.run = 0 THEN
        RAISE WARNING 'study % is not recorded in ranread_studies: it has no point in the history', study_id
            USING HINT = 'Its batches, if any, stay in ranread_batches with the study''s id.';
        RETURN;
    END IF;
    IF planned IS NULL OR skipped IS NULL OR skipped < 0 OR planned < runs.run + skipped THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid planned %s and skipped %s for ranread_study_record: study %s ran %s points',
                             coalesce(planned::text, 'NULL'), coalesce(skipped::text, 'NULL'), study_id, runs.run),
            HINT = 'planned counts every point of the study, at least those run and skipped.';
    END IF;
    -- the first point that did not complete ended the study
    SELECT ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647) AS n, b.batch, b.status INTO first_bad
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point) AND b.status OPERATOR(pg_catalog.<>) 'completed'
     ORDER BY 1, b.batch LIMIT 1;
    reason := CASE WHEN first_bad.batch IS NOT NULL
                   THEN format('status: point %s (batch %s) ended %s; the %s finished points are kept',
                               first_bad.n, first_bad.batch, first_bad.status, runs.completed)
                   WHEN skipped > 0
                   THEN format('early_end: %s points skipped in rows that stayed above the %s ms bound',
                               skipped, max_avg_ms) END;
    INSERT INTO @extschema@.ranread_studies
        (study, kind, started_at, finished_at, started_by, target, call, definition, planned,
         completed, skipped, max_avg_ms, stop_reason)
    VALUES (study_id, kind, reg.started_at, clock_timestamp(), reg.started_by, runs.target,
            call, definition, planned, runs.completed, skipped, max_avg_ms, reason);
    -- recorded, the study has ended (a profile's too, which no forwarder
    -- ends: src/history/calls.c)
    PERFORM ranread_internal.ranread_call_end('study', study_id);

    -- the first point of the highest IOPS, as the points ran
    SELECT b.point, b.iops, b.batch INTO best
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point)
       AND b.status OPERATOR(pg_catalog.=) 'completed' AND b.iops IS NOT NULL
     ORDER BY b.iops DESC, ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647) LIMIT 1;
    RAISE NOTICE '% %: % of % points completed in %, % s between points on average%',
        fn, study_id, runs.completed, planned,
        to_char(clock_timestamp() - started, 'HH24:MI:SS'),
        round((greatest(extract(epoch FROM clock_timestamp() - started)::float8 - measured, 0)
               / greatest(runs.run, 1))::numeric, 2),
        CASE WHEN best.batch IS NULL THEN ''
             ELSE format('; max %s IOPS at %s (batch %s)', round(best.iops::numeric),
                         CASE WHEN ranread_internal.ranread_study_row_label(best.point, row_dims) = 'all points' THEN ''
                              ELSE ranread_internal.ranread_study_row_label(best.point, row_dims) || ', ' END
                         || ranread_internal.ranread_study_label(column_dim, best.point -> column_dim),
                         best.batch) END;
END
$$;

-- Runs a list of points as the batches of one new study, in order, and
-- records the study.  points is a JSON array of {"point": {coordinates},
-- "groups": [the batch's groups], "duration": ..., "warmup": ...} (the last
-- two override the study's); spec is the workload every point shares (its
-- duration, warmup, target, seed, workers).  A NOTICE per point with the
-- time left; with early_end, a row ends once two of its points in a row
-- average above max_avg_ms (its other points are returned as skipped); a
-- point that does not complete (ranread_stop, an I/O error) ends the study,
-- which keeps every finished point.  One row per point run or skipped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_execute(
    kind        text,
    fn          text,
    call        text,
    definition  jsonb,
    points      jsonb,
    spec        jsonb,
    max_avg_ms  float8,
    early_end   boolean)
RETURNS SETOF @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    study_id   bigint;
    started    timestamptz := clock_timestamp();
    total      integer := jsonb_array_length(points);
    ax         record;
    p          jsonb;
    i          integer := 0;
    row_key    text;
    cur_row    text;
    row_avgs   float8[] := '{}';
    row_done   boolean := false;
    res        @extschema@.ranread_study_result;
    results    @extschema@.ranread_study_result[] := '{}';
    n_done     integer := 0;
    planned    float8[];
    measured   float8 := 0;
BEGIN
    -- What a study records besides its batches, checked before the first
    -- one (ranread_study's own call did already; a profile's has not)
    PERFORM ranread_internal.ranread_check_privileges('run ' || fn, fn, ARRAY[
        'EXECUTE on function @extschema@.ranread_run_step(jsonb)',
        'EXECUTE on function ranread_internal.ranread_call_register(text, bigint)',
        'EXECUTE on functions ranread_internal.ranread_progress_call*',
        'USAGE on sequence @extschema@.ranread_study_seq']);
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its points are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');

    SELECT * INTO ax
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT e -> 'point' FROM jsonb_array_elements(points) e), NULL, fn);
    SELECT array_agg(extract(epoch FROM coalesce((e ->> 'duration')::interval, (spec ->> 'duration')::interval)
                              + coalesce((e ->> 'warmup')::interval, (spec ->> 'warmup')::interval, '0'))::float8
                     ORDER BY k)
      INTO planned
      FROM jsonb_array_elements(points) WITH ORDINALITY x(e, k);

    study_id := nextval('@extschema@.ranread_study_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('study', study_id);
    RAISE NOTICE '% %: % points, about % of I/O', fn, study_id, total,
        to_char(make_interval(secs => (SELECT sum(v) FROM unnest(planned) v)), 'HH24:MI:SS');

    FOR p IN SELECT e FROM jsonb_array_elements(points) WITH ORDINALITY x(e, k) ORDER BY k LOOP
        i := i + 1;
        row_key := ranread_internal.ranread_study_row_label(p -> 'point', ax.row_dims);
        IF row_key IS DISTINCT FROM cur_row THEN
            cur_row := row_key;
            row_avgs := '{}';
            row_done := false;
        END IF;
        res := ROW(study_id, i, NULL, row_key, p -> 'point' ->> ax.column_dim,
                   jsonb_build_object('n', i) || (p -> 'point'),
                   NULL, NULL, NULL, NULL, NULL, 'skipped')::@extschema@.ranread_study_result;
        IF row_done THEN
            results := results || res;
            CONTINUE;
        END IF;

        n_done := n_done + 1;
        measured := measured + planned[i];
        res := ranread_internal.ranread_study_point(res, p, spec, fn, total, planned, started,
                                                    measured, n_done, ax.column_dim);
        results := results || res;
        -- a point that did not complete ends the study (its row says so,
        -- from the history: ranread_study_record)
        IF res.status IS DISTINCT FROM 'completed' THEN
            EXIT;
        END IF;

        row_avgs := row_avgs || res.avg_ms;
        IF early_end AND ranread_internal.ranread_study_row_ended(row_avgs, max_avg_ms) THEN
            row_done := true;
            IF i < total AND ranread_internal.ranread_study_row_label(points -> i -> 'point', ax.row_dims) = row_key THEN
                RAISE NOTICE '% % row "%" ends early: average latency above % ms on two points in a row',
                    fn, study_id, row_key, max_avg_ms;
            END IF;
        END IF;
    END LOOP;

    PERFORM ranread_internal.ranread_study_record(study_id, kind, fn, call, definition, total,
                                                  (SELECT count(*)::integer FROM unnest(results) x WHERE x.status = 'skipped'),
                                                  max_avg_ms, started, measured, ax.column_dim, ax.row_dims);
    RETURN QUERY SELECT * FROM unnest(results);
END
$$;

-- The dimensions of a study, checked: each array not empty, without NULL
-- or repeats, its values within the option's range (ranread_options), a
-- region as START-END; the text dimensions in one spelling, so that no two
-- values make the same point.  Returns those spellings, and the regions as
-- JSON.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_dims(
    processes integer[], queue_depth integer[], block_size integer[], write_pct integer[],
    region text[], pattern text[], distribution text[], small integer[], large integer[],
    num_small integer, num_large integer, fn text,
    OUT patterns text[], OUT distributions text[], OUT regions jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim   record;
    rg    text;
    m     text[];
    bad   text;
    same  record;
    o     record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    FOR o IN SELECT x.name, x.minimum, x.maximum FROM @extschema@.ranread_options() x
              WHERE x.name IN ('processes', 'queue_depth', 'block_size', 'write_pct')
              ORDER BY array_position(ARRAY['processes', 'queue_depth', 'block_size', 'write_pct'], x.name) LOOP
        PERFORM ranread_internal.ranread_study_check_ints(o.name,
            CASE o.name WHEN 'processes' THEN processes WHEN 'queue_depth' THEN queue_depth
                        WHEN 'block_size' THEN block_size ELSE write_pct END,
            o.minimum::integer, o.maximum::integer,
            CASE o.name WHEN 'processes' THEN 'a number of processes' WHEN 'queue_depth' THEN 'a queue depth'
                        WHEN 'block_size' THEN 'a block size in bytes' ELSE 'a percentage of writes' END, fn);
    END LOOP;
    PERFORM ranread_internal.ranread_study_check_ints('small', small, 0, lim.max_processes, 'a small I/O load (processes)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('large', large, 0, lim.max_processes, 'a large I/O load (streams)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('num_small', CASE WHEN num_small IS NOT NULL THEN ARRAY[num_small] END, 0, lim.max_processes, 'a small I/O load (processes)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('num_large', CASE WHEN num_large IS NOT NULL THEN ARRAY[num_large] END, 0, lim.max_processes, 'a large I/O load (streams)', fn);
    FOREACH bad IN ARRAY ARRAY['region', 'pattern', 'distribution'] LOOP
        IF (CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) = '{}' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid %s {} for %s: an empty array', bad, fn),
                HINT = format('%s is an array of values, such as %s; leave it out to keep the default.', bad,
                              CASE bad WHEN 'region' THEN '''{0-100,0-40,40-100}'''
                                       WHEN 'pattern' THEN '''{random,sequential}'''
                                       ELSE '''{uniform,zipf:1.2}''' END);
        END IF;
        IF array_position(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END, NULL) IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = 'null_value_not_allowed',
                MESSAGE = format('%s of %s must not contain NULL', bad, fn),
                HINT = format('%s is an array of values; leave it out to keep the default.', bad);
        END IF;
        SELECT v INTO rg FROM unnest(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) v
         GROUP BY v HAVING count(*) > 1 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s of %s repeats %s', bad, fn, quote_literal(ranread_internal.ranread_study_shown(rg))),
                HINT = 'Give each value once: a repeated value would run the same point twice.';
        END IF;
    END LOOP;
    regions := '[]';
    FOREACH rg IN ARRAY coalesce(region, '{}') LOOP
        m := regexp_match(rg, '^\s*([0-9]+(?:\.[0-9]+)?)\s*-\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$');
        IF m IS NULL OR m[1]::float8 >= m[2]::float8 OR m[2]::float8 > 100 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid region %s for %s', quote_literal(ranread_internal.ranread_study_shown(rg)), fn),
                HINT = 'A region is START-END in percent of the target, 0 <= START < END <= 100, such as ''0-40'' (the outer 40% of a disk) or ''40-100''.';
        END IF;
        regions := regions || to_jsonb(ranread_internal.ranread_study_normalize('region', rg));
    END LOOP;

    -- Values that differ only in spelling would run the same point twice:
    -- each dimension's values in one spelling, and no two alike
    FOREACH bad IN ARRAY ARRAY['region', 'pattern', 'distribution'] LOOP
        SELECT min(v) AS a, max(v) AS b, ranread_internal.ranread_study_normalize(bad, v) AS n INTO same
          FROM unnest(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) v
         GROUP BY 3 HAVING count(*) > 1 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s of %s repeats %s: %s and %s are the same %s',
                                 bad, fn, quote_literal(ranread_internal.ranread_study_shown(same.n)),
                                 quote_literal(ranread_internal.ranread_study_shown(same.a)),
                                 quote_literal(ranread_internal.ranread_study_shown(same.b)), bad),
                HINT = 'Give each value once: a repeated value would run the same point twice.';
        END IF;
    END LOOP;
    patterns := CASE WHEN pattern IS NOT NULL THEN
        ARRAY(SELECT ranread_internal.ranread_study_normalize('pattern', v) FROM unnest(pattern) WITH ORDINALITY u(v, k) ORDER BY k) END;
    distributions := CASE WHEN distribution IS NOT NULL THEN
        ARRAY(SELECT ranread_internal.ranread_study_normalize('distribution', v) FROM unnest(distribution) WITH ORDINALITY u(v, k) ORDER BY k) END;
END
$$;

-- The other arguments of a study: the dimensions a matrix of small and
-- large loads excludes, and each point's length and warm-up, the bound,
-- early_end and a matrix's large pattern.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_args(
    is_mix boolean, processes integer[], queue_depth integer[], block_size integer[], pattern text[],
    num_small integer, num_large integer, duration interval, max_avg_ms float8,
    early_end boolean, large_pattern text, fn text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
BEGIN
    IF is_mix THEN
        SELECT x INTO bad
          FROM (VALUES ('processes', processes IS NOT NULL), ('queue_depth', queue_depth IS NOT NULL),
                       ('block_size', block_size IS NOT NULL), ('pattern', pattern IS NOT NULL)) v(x, given)
         WHERE given LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s cannot be a dimension of a %s with small and large loads', bad, fn),
                HINT = 'A matrix''s loads are its processes: small random I/O of small_size at queue depth 1, large I/O of large_size as large_pattern says.';
        END IF;
    ELSIF num_small IS NOT NULL OR num_large IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s needs a matrix', CASE WHEN num_small IS NOT NULL THEN 'num_small' ELSE 'num_large' END, fn),
            HINT = 'num_small and num_large fix a load of matrix row, col, point or max: give small and large loads and a matrix.';
    END IF;
    -- a point runs for its duration (its value, like warmup's, is the
    -- parser's to check: ranread_study checks the spec)
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is the length of each point, such as ''10s''.');
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 OR max_avg_ms = 'Infinity'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_avg_ms IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'early_end', early_end,
        'early_end is true to end a row once two of its points in a row average above max_avg_ms, false to run every point.');
    IF large_pattern IS NULL OR large_pattern NOT IN ('random', 'sequential') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid large_pattern %s for %s', coalesce(quote_literal(large_pattern), 'NULL'), fn),
            HINT = 'large_pattern is ''random'' (ORION''s -type rand) or ''sequential'' (-type seq).';
    END IF;
END
$$;

-- The points of a study's grid, each with its batch's groups, refused past
-- max_points before any is built: the product of the dimensions' sizes
-- (numeric, so that no product overflows) times the points the matrix
-- selects.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_plan(
    dims jsonb, is_mix boolean, matrix text, small integer[], large integer[],
    num_small integer, num_large integer, target name, small_size integer, large_size integer,
    large_pattern text, fn text, max_points integer DEFAULT 1000)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_points numeric := 1;
    d        text;
BEGIN
    FOREACH d IN ARRAY ARRAY['region', 'pattern', 'distribution', 'block_size', 'write_pct', 'queue_depth', 'processes'] LOOP
        n_points := n_points * coalesce(jsonb_array_length(dims -> d), 1);
    END LOOP;
    IF is_mix THEN
        n_points := n_points * ranread_internal.ranread_study_matrix_count(coalesce(matrix, 'basic'), small, large,
                                                                          num_small, num_large);
        IF n_points = 0 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('matrix %s of %s selects no point with a load', coalesce(matrix, 'basic'), fn),
                HINT = 'Every point of the loads given is small 0 and large 0; give loads above 0.';
        END IF;
    END IF;
    IF n_points > max_points THEN
        RAISE EXCEPTION USING
            ERRCODE = 'program_limit_exceeded',
            MESSAGE = format('%s would run %s points, more than %s', fn, n_points, max_points),
            HINT = 'Give fewer values per dimension, or run the grid as several studies.';
    END IF;
    RETURN (SELECT coalesce(jsonb_agg(jsonb_build_object('point', pt.point,
                                                         'groups', ranread_internal.ranread_study_groups(pt.point, target,
                                                             small_size, large_size, large_pattern))
                                      ORDER BY pt.n), '[]')
              FROM ranread_internal.ranread_study_grid_points(dims, matrix, num_small, num_large) pt);
END
$$;

-- Each point's options, checked before any I/O: the group options (once
-- per distinct set), the limits on I/O in flight and processes, whole
-- pages for writes, and workers against the smallest point.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_points(pts jsonb, workers integer, fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim         record;
    g           jsonb;
    total_procs integer;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    FOR g IN
        SELECT DISTINCT x - 'processes' - 'label' - 'queue_depth' - 'write_pct'
          FROM jsonb_array_elements(pts) p, jsonb_array_elements(p -> 'groups') x
    LOOP
        PERFORM ranread_internal.ranread_study_check_group(g, fn);
    END LOOP;
    SELECT p -> 'point' INTO g
      FROM jsonb_array_elements(pts) p
     WHERE (SELECT sum((x ->> 'processes')::bigint * (x ->> 'queue_depth')::integer)
              FROM jsonb_array_elements(p -> 'groups') x) > lim.max_inflight
        OR (SELECT sum((x ->> 'processes')::bigint * (x ->> 'queue_depth')::integer * (x ->> 'block_size')::integer)
              FROM jsonb_array_elements(p -> 'groups') x) > lim.max_inflight_bytes
     LIMIT 1;
    IF NOT FOUND THEN
        SELECT p -> 'point' INTO g
          FROM jsonb_array_elements(pts) p
         WHERE (SELECT sum((x ->> 'processes')::bigint) FROM jsonb_array_elements(p -> 'groups') x) > lim.max_processes
         LIMIT 1;
    END IF;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('the point %s of %s has too many processes or too much I/O in flight', g, fn),
            HINT = format('At every point the processes of all groups must be at most %s, processes x queue_depth at most %s I/Os, and x block_size at most %s bytes.',
                          lim.max_processes, lim.max_inflight, lim.max_inflight_bytes);
    END IF;
    SELECT p -> 'point' INTO g
      FROM jsonb_array_elements(pts) p, jsonb_array_elements(p -> 'groups') x
     WHERE (x ->> 'write_pct')::integer > 0
       AND (x ->> 'block_size')::integer % current_setting('block_size')::integer <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('the point %s of %s writes blocks smaller than a page', g, fn),
            HINT = format('ranread writes whole pages: with write_pct above 0, every block size must be a multiple of %s.',
                          current_setting('block_size'));
    END IF;
    SELECT min((SELECT sum((x ->> 'processes')::integer) FROM jsonb_array_elements(p -> 'groups') x))
      INTO total_procs FROM jsonb_array_elements(pts) p;
    IF workers < 1 OR workers > total_procs THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be between 1 and %s, not %s', fn, total_procs, workers),
            HINT = format('workers must be between 1 and the processes of the smallest point (%s), or NULL to let each point choose.',
                          total_procs);
    END IF;
END
$$;

-- ranread_study, behind the C function users call: its dimensions and own
-- arguments bound by name, the workload every point shares (duration,
-- warmup, target, seed, workers) as one spec, and the exact call
-- (src/workload/forward.c).  Everything is checked before the first batch.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study(
    processes integer[], queue_depth integer[], block_size integer[], write_pct integer[],
    region text[], pattern text[], distribution text[], small integer[], large integer[],
    matrix text, num_small integer, num_large integer, duration interval, warmup interval,
    max_avg_ms float8, early_end boolean, target name, small_size integer, large_size integer,
    large_pattern text, workers integer, spec jsonb, call text)
RETURNS SETOF @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_study';
    is_mix  boolean := small IS NOT NULL OR large IS NOT NULL OR matrix IS NOT NULL;
    d       record;
    dims    jsonb;
    pts     jsonb;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    SELECT * INTO d FROM ranread_internal.ranread_study_check_dims(processes, queue_depth, block_size,
        write_pct, region, pattern, distribution, small, large, num_small, num_large, fn);
    PERFORM ranread_internal.ranread_study_check_args(is_mix, processes, queue_depth, block_size, pattern,
        num_small, num_large, duration, max_avg_ms, early_end, large_pattern, fn);
    -- the workload every point shares (duration, warmup, seed), checked as
    -- a batch checks it (its target with the groups' options); workers are
    -- checked against the smallest point
    PERFORM ranread_internal.ranread_spec_check((spec - 'workers' - 'groups')
        || jsonb_build_object('caller', fn, 'groups', jsonb_build_array(jsonb_build_object('processes', 1))), false);

    dims := jsonb_strip_nulls(jsonb_build_object(
        'region', CASE WHEN region IS NOT NULL THEN d.regions END,
        'pattern', to_jsonb(d.patterns), 'distribution', to_jsonb(d.distributions),
        'block_size', to_jsonb(block_size), 'write_pct', to_jsonb(write_pct),
        'queue_depth', to_jsonb(queue_depth),
        'processes', CASE WHEN NOT is_mix THEN to_jsonb(coalesce(processes, '{1}')) END,
        'small', to_jsonb(small), 'large', to_jsonb(large)));
    pts := ranread_internal.ranread_study_plan(dims, is_mix, matrix, small, large, num_small, num_large,
                                               target, small_size, large_size, large_pattern, fn);
    PERFORM ranread_internal.ranread_study_check_points(pts, workers, fn);

    RETURN QUERY
    SELECT * FROM ranread_internal.ranread_study_execute(
        'study', fn, call,
        -- the definition: the grid, the study's own arguments, the workload
        -- every point shares (but its target, which ranread_studies has)
        jsonb_strip_nulls(jsonb_build_object(
            'dimensions', dims, 'matrix', CASE WHEN is_mix THEN coalesce(matrix, 'basic') END,
            'num_small', num_small, 'num_large', num_large,
            'max_avg_ms', max_avg_ms, 'early_end', early_end,
            'small_size', CASE WHEN is_mix THEN small_size END,
            'large_size', CASE WHEN is_mix THEN large_size END,
            'large_pattern', CASE WHEN is_mix THEN large_pattern END)) || (spec - 'caller' - 'target'),
        pts, spec, max_avg_ms, early_end);
END
$$;

-- A grid of batches in one call: the product of the dimensions given as
-- arrays (see ranread_study_grid_points), each point a batch of duration
-- after warmup.  small and large are the loads of ORION's mix (small: that
-- many processes of small_size random I/O at queue depth 1; large: that many
-- streams of large_size I/O, random or sequential as large_pattern says),
-- combined as matrix says; they replace processes, queue_depth, block_size
-- and pattern.  Everything is checked before the first batch; the workload
-- options take ranread_run's defaults but duration (ranread_options).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study(
    @options(processes[], queue_depth[], block_size[], write_pct[]),
    region        text[]    DEFAULT NULL,
    @options(pattern[], distribution[]),
    small         integer[] DEFAULT NULL,
    large         integer[] DEFAULT NULL,
    matrix        text      DEFAULT NULL,
    num_small     integer   DEFAULT NULL,
    num_large     integer   DEFAULT NULL,
    @options(duration='10s', warmup),
    max_avg_ms    float8    DEFAULT 10,
    early_end     boolean   DEFAULT false,
    @options(target),
    small_size    integer   DEFAULT 8192,
    large_size    integer   DEFAULT 1048576,
    large_pattern text      DEFAULT 'random',
    @options(seed, workers, io_priority, verify))
    @skip(region_start region_end: the region dimension sets both ('START-END' per point); iterations steady_state: every point runs for duration, so that points compare; rate_iops: a study measures what the storage answers at each point, which a cap would hide; path effective_io_concurrency: not dimensions of a study (ranread_paths compares the two paths at each prefetch distance); sync: a study's writes are plain (ranread_commit_test times the commit path, ranread_run and ranread_sweep synced writes); start_at: the points start one after another)
RETURNS SETOF @extschema@.ranread_study_result
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Error unless this transaction runs at read committed: fn records its
-- steps while it runs (a study's points and a latency-target search's
-- windows through their workers, a fleet sweep's steps through the
-- recorder), which a repeatable read snapshot cannot see.  hint says what
-- fn records and what to do.  Shared by ranread_study,
-- ranread_latency_target and ranread_fleet_sweep.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_require_read_committed(fn text, hint text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_transaction_state',
            MESSAGE = format('%s must run at the read committed isolation level, not %s',
                             fn, current_setting('transaction_isolation')),
            HINT = hint;
    END IF;
END
$$;
