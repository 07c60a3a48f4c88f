-- 1.1, profiles: the workloads people compare storage by, each a study with
-- a fixed definition (ranread_profile_points, pure), run by the study
-- executor (40_study.sql), reported as the tool it imitates reports:
-- crystaldiskmark        CrystalDiskMark 8's Default preset: SEQ1M Q8T1,
-- SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read then write crystaldiskmark-nvme
-- its NVMe SSD preset: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1
-- crystaldiskmark-real   its Real World Performance profile: SEQ1M Q1T1,
-- RND4K Q1T1 (each test: a first pass with an unmeasured "Preparing" run of
-- the same length, then passes passes, the best MB/s and lowest latency
-- kept) orion-oltp             ORION -run oltp: 8 KiB random reads at small
-- loads 1 .. 5 x num_disks (matrix row, large 0) orion-dss
-- ORION -run dss: 1 MiB random reads at large loads 1 .. 2 x num_disks
-- (matrix col, small 0) orion-normal           ORION -run normal: every
-- combination of small loads 0 .. 5 x num_disks and large 0 .. 2 x
-- num_disks snia-latency           SNIA PTS's latency test: random 0.5, 4
-- and 8 KiB at R/W 100/0, 65/35, 0/100, one thread at QD1: average, 99.999%
-- and maximum latency  The user calls ranread_profile,
-- ranread_profile_report and ranread_profile_chart; the definitions and
-- ranread_profile's steps (check the arguments, plan the runs, run them as
-- a study, report) are in schema ranread_internal.

-- Is block_size usable on target (the direct I/O alignment)?  No I/O.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_block_size_ok(target name, block_size integer)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@.ranread_blocks(1, 1, target, block_size);
    RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN false;
END
$$;

-- The names of the profiles, for hints and docs.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_names()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY['crystaldiskmark', 'crystaldiskmark-nvme', 'crystaldiskmark-real',
                 'orion-oltp', 'orion-dss', 'orion-normal', 'snia-latency']
$$;

-- A profile's points, as ranread_study_execute runs them: {"point",
-- "groups", "warmup"}.  passes (CrystalDiskMark) and num_disks (ORION)
-- scale the definition; writes false leaves CrystalDiskMark's write tests
-- out; small_blocks false leaves SNIA's 0.5 KiB out (a target whose direct
-- I/O alignment is larger cannot do them).  ranread writes whole pages
-- (page_size, the server's block size), so writes of smaller blocks
-- (CrystalDiskMark's RND4K, SNIA's 0.5 and 4 KiB mixes) are left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_points(
    name          text,
    target        name     DEFAULT 'ranread',
    duration      interval DEFAULT '5s',
    passes        integer  DEFAULT 3,
    num_disks     integer  DEFAULT 1,
    writes        boolean  DEFAULT true,
    small_blocks  boolean  DEFAULT true,
    page_size     integer  DEFAULT 8192)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tests jsonb;
    pts   jsonb := '[]';
    t     jsonb;
    mode  text;
    pass  integer;
    p     jsonb;
    points jsonb[];
BEGIN
    IF name LIKE 'crystaldiskmark%' THEN
        tests := CASE name
            WHEN 'crystaldiskmark' THEN
                '[["SEQ1M Q8T1", "sequential", 1048576, 8, 1], ["SEQ1M Q1T1", "sequential", 1048576, 1, 1],
                  ["RND4K Q32T1", "random", 4096, 32, 1], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            WHEN 'crystaldiskmark-nvme' THEN
                '[["SEQ1M Q8T1", "sequential", 1048576, 8, 1], ["SEQ128K Q32T1", "sequential", 131072, 32, 1],
                  ["RND4K Q32T16", "random", 4096, 32, 16], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            WHEN 'crystaldiskmark-real' THEN
                '[["SEQ1M Q1T1", "sequential", 1048576, 1, 1], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            END::jsonb;
        IF tests IS NULL THEN
            RETURN NULL;
        END IF;
        FOREACH mode IN ARRAY CASE WHEN writes THEN ARRAY['read', 'write'] ELSE ARRAY['read'] END LOOP
            FOR t IN SELECT e FROM jsonb_array_elements(tests) WITH ORDINALITY x(e, i) ORDER BY i LOOP
                CONTINUE WHEN mode = 'write' AND (t ->> 2)::integer % page_size <> 0;
                FOR pass IN 1 .. passes LOOP
                    pts := pts || jsonb_build_object(
                        'point', jsonb_build_object('test', t ->> 0, 'mode', mode, 'pass', pass),
                        'warmup', CASE WHEN pass = 1 THEN duration ELSE interval '0' END,
                        'groups', jsonb_build_array(jsonb_build_object(
                            'target', target, 'pattern', t ->> 1, 'block_size', (t ->> 2)::integer,
                            'queue_depth', (t ->> 3)::integer, 'processes', (t ->> 4)::integer,
                            'write_pct', CASE mode WHEN 'read' THEN 0 ELSE 100 END)));
                END LOOP;
            END LOOP;
        END LOOP;
        RETURN pts;
    END IF;

    IF name IN ('orion-oltp', 'orion-dss', 'orion-normal') THEN
        points := ARRAY(
            SELECT g.point
              FROM ranread_internal.ranread_study_grid_points(
                       CASE name
                           WHEN 'orion-oltp' THEN jsonb_build_object('small', to_jsonb(ARRAY(SELECT generate_series(1, 5 * num_disks))), 'large', '[0]'::jsonb)
                           WHEN 'orion-dss' THEN jsonb_build_object('small', '[0]'::jsonb, 'large', to_jsonb(ARRAY(SELECT generate_series(1, 2 * num_disks))))
                           ELSE jsonb_build_object('small', to_jsonb(ARRAY(SELECT generate_series(0, 5 * num_disks))),
                                                   'large', to_jsonb(ARRAY(SELECT generate_series(0, 2 * num_disks))))
                       END,
                       CASE name WHEN 'orion-oltp' THEN 'row' WHEN 'orion-dss' THEN 'col' ELSE 'detailed' END) g
             ORDER BY g.n);
    ELSIF name = 'snia-latency' THEN
        points := ARRAY(
            SELECT jsonb_build_object('block_size', bs, 'write_pct', w)
              FROM unnest(CASE WHEN small_blocks THEN ARRAY[512, 4096, 8192] ELSE ARRAY[4096, 8192] END)
                   WITH ORDINALITY b(bs, i),
                   unnest(ARRAY[0, 35, 100]) WITH ORDINALITY m(w, j)
             WHERE w = 0 OR bs % page_size = 0
             ORDER BY i, j);
    ELSE
        RETURN NULL;
    END IF;
    -- ORION's and SNIA's points, each with its groups as a study's grid has them
    FOREACH p IN ARRAY points LOOP
        pts := pts || jsonb_build_object('point', p,
                                         'groups', ranread_internal.ranread_study_groups(p, target));
    END LOOP;
    RETURN pts;
END
$$;

-- A CrystalDiskMark test as its window prints it:
--   SEQ    1MiB (Q=  8, T= 1):  3514.385 MB/s [   3351.6 IOPS] <  2385.10 us>
-- (MB/s in decimal megabytes, as CrystalDiskMark counts them).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_cdm_line(test text, block_size integer,
    queue_depth integer, processes integer, iops float8, avg_us float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('  %s %7s (Q=%3s, T=%2s): %9s MB/s [%9s IOPS] <%10s us>',
                  left(test, 3),
                  CASE WHEN block_size % 1048576 = 0 THEN (block_size / 1048576) || 'MiB'
                       ELSE (block_size / 1024) || 'KiB' END,
                  queue_depth, processes,
                  coalesce(to_char(iops * block_size / 1e6, 'FM999990.000'), 'n/a'),
                  coalesce(to_char(iops, 'FM9999990.0'), 'n/a'),
                  coalesce(to_char(avg_us, 'FM9999990.00'), 'n/a'))
$$;

-- Step: ranread_profile's arguments, before anything runs: the profile is
-- known, the options of another tool's profile are not given, and each
-- option is NULL (the tool's own) or within what the tool offers.  The
-- first check that fails (in this order) is raised.  Returns the length of
-- each run: duration, or the tool's own.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_check(name text, duration interval,
    passes integer, num_disks integer, writes boolean, workers integer)
RETURNS interval
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    max_disks constant integer := (SELECT l.max_processes / 5 FROM @extschema@.ranread_limits() l);
    bad       ranread_internal.ranread_check;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (name IS NULL OR NOT (name = ANY (ranread_internal.ranread_profile_names())),
         CASE WHEN name IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
         format('unknown profile %s for %s', coalesce(quote_literal(name), 'NULL'), fn),
         format('The profiles are %s.', array_to_string(ranread_internal.ranread_profile_names(), ', '))),
        (duration <= interval '0', 'invalid_parameter_value',
         format('invalid duration %s for %s', quote_literal(duration), fn),
         'duration is the length of each run: greater than 0, or NULL for the tool''s own (CrystalDiskMark 5 s, ORION and SNIA 60 s).'),
        (passes IS NOT NULL AND name NOT LIKE 'crystaldiskmark%', 'invalid_parameter_value',
         format('passes does not apply to profile %s of %s', name, fn),
         'passes is the number of measured passes of a CrystalDiskMark test.'),
        (passes < 1 OR passes > 9, 'invalid_parameter_value',
         format('invalid passes %s for %s', passes, fn),
         'passes is 1 to 9, as CrystalDiskMark offers; 3 by default.'),
        (num_disks IS NOT NULL AND name NOT LIKE 'orion-%', 'invalid_parameter_value',
         format('num_disks does not apply to profile %s of %s', name, fn),
         'num_disks sizes the loads of the ORION profiles (small up to 5 x num_disks, large up to 2 x num_disks).'),
        (num_disks < 1 OR num_disks > max_disks, 'invalid_parameter_value',
         format('invalid num_disks %s for %s', num_disks, fn),
         format('num_disks is the number of disks under the target, 1 to %s.', max_disks)),
        (writes IS NULL, 'null_value_not_allowed',
         format('writes of %s must not be null', fn),
         'writes is true to run CrystalDiskMark''s write tests after its read tests, false for reads only.'),
        (workers < 1, 'invalid_parameter_value',
         format('workers of %s must be at least 1, not %s', fn, workers),
         'workers must be at least 1, or NULL to let each run choose.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    RETURN coalesce(duration, CASE WHEN name LIKE 'crystaldiskmark%' THEN interval '5s' ELSE interval '60s' END);
END
$$;

-- Step: a profile's runs on target (ranread_profile_points), and what of
-- the tool's definition the target or ranread cannot do, each said in a
-- NOTICE: SNIA's 0.5 KiB blocks where the direct I/O alignment is larger
-- (small_blocks false), writes smaller than the server's pages.  Refuses
-- more workers than the smallest run has processes.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_plan(name text, target name, duration interval,
    passes integer, num_disks integer, writes boolean, workers integer,
    OUT points jsonb, OUT small_blocks boolean)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    page_size constant integer := current_setting('block_size')::integer;
    left_out  text;
BEGIN
    PERFORM ranread_internal.ranread_study_check_group(jsonb_build_object('target', target, 'block_size', 4096), fn);
    small_blocks := true;
    IF name = 'snia-latency' AND NOT ranread_internal.ranread_block_size_ok(target, 512) THEN
        small_blocks := false;
        RAISE NOTICE '% %: the 0.5 KiB tests are left out: the direct I/O alignment of target % is larger than 512 bytes',
            fn, name, target;
    END IF;
    points := ranread_internal.ranread_profile_points(name, target, duration, coalesce(passes, 3),
                                                      coalesce(num_disks, 1), writes, small_blocks, page_size);
    IF name LIKE 'crystaldiskmark%' AND writes THEN
        -- the tests of the definition at any page size, less those planned
        SELECT string_agg(DISTINCT x.t, ', ') INTO left_out
          FROM (SELECT e.point ->> 'test' AS t, e.point ->> 'mode' AS m
                  FROM jsonb_to_recordset(ranread_internal.ranread_profile_points(name, target, duration, 1, 1, writes,
                                                                                  small_blocks, 1)) AS e(point jsonb)
                EXCEPT
                SELECT e.point ->> 'test', e.point ->> 'mode'
                  FROM jsonb_to_recordset(points) AS e(point jsonb)) x
         WHERE x.t IS NOT NULL;
    ELSIF name = 'snia-latency' THEN
        SELECT string_agg(format('%s B %s%% writes', bs, w), ', ') INTO left_out
          FROM unnest(CASE WHEN small_blocks THEN ARRAY[512, 4096] ELSE ARRAY[4096] END) bs, unnest(ARRAY[35, 100]) w
         WHERE bs % page_size <> 0;
    END IF;
    IF left_out IS NOT NULL THEN
        RAISE NOTICE '% %: the write tests of % are left out: ranread writes whole % byte pages',
            fn, name, left_out, page_size;
    END IF;
    IF workers > (SELECT min((p -> 'groups' -> 0 ->> 'processes')::integer) FROM jsonb_array_elements(points) p) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be at most the processes of its smallest run, not %s', fn, workers),
            HINT = 'workers must be at most the processes of the profile''s smallest run (1), or NULL.';
    END IF;
END
$$;

-- The call as the study records it: ranread_profile with the arguments
-- given, the defaults left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_call(name text, target name, duration interval,
    passes integer, num_disks integer, writes boolean, seed bigint, workers integer)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('SELECT * FROM ranread_profile(%s);', array_to_string(ARRAY[quote_literal($1)]
        || CASE WHEN $2 <> 'ranread' THEN ARRAY[format('target => %L', $2)] ELSE '{}' END
        || CASE WHEN $3 IS NOT NULL THEN ARRAY[format('duration => %L', $3)] ELSE '{}' END
        || CASE WHEN $4 IS NOT NULL THEN ARRAY[format('passes => %s', $4)] ELSE '{}' END
        || CASE WHEN $5 IS NOT NULL THEN ARRAY[format('num_disks => %s', $5)] ELSE '{}' END
        || CASE WHEN NOT $6 THEN ARRAY['writes => false'] ELSE '{}' END
        || CASE WHEN $7 IS NOT NULL THEN ARRAY[format('seed => %s', $7)] ELSE '{}' END
        || CASE WHEN $8 IS NOT NULL THEN ARRAY[format('workers => %s', $8)] ELSE '{}' END, ', '))
$$;

-- Step: CrystalDiskMark's window as a NOTICE: its lines under [Read] and
-- [Write], and the test's conditions.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_cdm_notice(study_id bigint, name text, target name,
    duration interval, passes integer)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    txt text;
BEGIN
    -- the report's lines, [Read] and [Write] headings included
    SELECT string_agg(x.result, E'\n') INTO txt
      FROM @extschema@.ranread_profile_report(study_id) x;
    txt := format('ranread %s, profile %s (study %s)',
                  (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'),
                  name, study_id) || E'\n' || txt;
    RAISE NOTICE E'%\n  Test: target %, % per pass, % passes after a preparing pass', txt, target, duration, passes;
END
$$;

-- Runs a profile (see the top of this file) as a study on target and
-- reports it as the tool it imitates: CrystalDiskMark's lines (best of the
-- passes: highest MB/s, lowest latency), ORION's points and the lines of its
-- summary, SNIA's latency table.  duration is per run (each pass, each
-- point): by default the tool's own (CrystalDiskMark 5 s, ORION 60 s, SNIA
-- 60 s).  mbps is MiB/s as everywhere in ranread; result prints the tool's
-- units.  Steps: check the arguments, plan the runs, run them as a study,
-- report.
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile(
    name       text,
    @options(target, duration=NULL),
    passes     integer  DEFAULT NULL,
    num_disks  integer  DEFAULT NULL,
    writes     boolean  DEFAULT true,
    @options(seed, workers))
    @skip(rest: a profile's tests are its own workloads, as the tool it follows runs them)
RETURNS TABLE (study bigint, test text, mode text, mbps numeric, iops bigint,
               avg_us numeric, p99_us numeric, p99999_us numeric, max_us numeric, result text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    is_cdm    constant boolean := name LIKE 'crystaldiskmark%';
    dur       interval;
    plan      record;
    study_id  bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    -- the steps are assignments (not PERFORM or SELECT INTO), so that an
    -- error's CONTEXT names ranread_profile without the statement's text
    dur := ranread_internal.ranread_profile_check(name, duration, passes, num_disks, writes, workers);
    plan := ranread_internal.ranread_profile_plan(name, target, dur, passes, num_disks, writes, workers);

    SELECT min(x.study) INTO study_id
      FROM ranread_internal.ranread_study_execute(
               name, fn,
               ranread_internal.ranread_profile_call(name, target, duration, passes, num_disks, writes, seed, workers),
               jsonb_strip_nulls(jsonb_build_object('profile', name, 'duration', dur,
                   'passes', CASE WHEN is_cdm THEN coalesce(passes, 3) END,
                   'num_disks', CASE WHEN name LIKE 'orion-%' THEN coalesce(num_disks, 1) END,
                   'writes', CASE WHEN is_cdm THEN writes END, 'seed', seed, 'workers', workers,
                   'small_blocks', CASE WHEN name = 'snia-latency' THEN plan.small_blocks END)),
               plan.points, jsonb_build_object('target', target, 'duration', dur, 'warmup', interval '0',
                                               'seed', seed, 'workers', workers), 10, false) x;

    RETURN QUERY SELECT * FROM @extschema@.ranread_profile_report(study_id);
    IF is_cdm THEN
        PERFORM ranread_internal.ranread_profile_cdm_notice(study_id, name, target, dur, coalesce(passes, 3));
    END IF;
END
$$;

-- A profile's figures as the tool it imitates reports them, from the
-- history (so it reads a stopped or cancelled profile's finished runs too):
-- see ranread_profile.  The figures whole; ranread_profile_report rounds
-- them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_report_raw(study_id bigint)
RETURNS TABLE (study bigint, test text, mode text, mbps float8, iops float8,
               avg_us float8, p99_us float8, p99999_us float8, max_us float8, result text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_profile_report';
    id   constant bigint := study_id;
    kind text;
BEGIN
    PERFORM ranread_internal.ranread_study_check(id, fn);
    SELECT s.kind INTO kind FROM @extschema@.ranread_studies s WHERE s.study OPERATOR(pg_catalog.=) id;
    IF kind IS NULL THEN
        -- a profile that never returned: tell it by its points
        SELECT CASE WHEN bool_or(b.point ? 'test') THEN 'crystaldiskmark'
                    WHEN bool_or(b.point ? 'small') THEN 'orion'
                    ELSE 'snia-latency' END
          INTO kind
          FROM @extschema@.ranread_batches b
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point);
    END IF;

    IF kind LIKE 'crystaldiskmark%' THEN
        RETURN QUERY
        WITH runs AS (
            SELECT b.batch, b.point ->> 'test' AS t, b.point ->> 'mode' AS m,
                   ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647)::integer AS n,
                   g.block_size, g.queue_depth, g.processes, b.iops AS io, b.mbps AS mb, b.avg_ms, b.p99_ms,
                   b.max_ms, @extschema@.ranread_hist_percentile(b.histogram, 99.999) AS p5
              FROM @extschema@.ranread_batches b
              JOIN @extschema@.ranread_groups g ON g.batch OPERATOR(pg_catalog.=) b.batch
                                              AND g.grp OPERATOR(pg_catalog.=) 1
             WHERE b.study OPERATOR(pg_catalog.=) id AND b.status OPERATOR(pg_catalog.=) 'completed'
               AND b.iops > 0 AND ranread_internal.ranread_study_point_ok(b.point)),
        best AS (
            SELECT DISTINCT ON (r.t, r.m) r.*, min(r.avg_ms) OVER (PARTITION BY r.t, r.m) AS min_avg,
                   min(r.n) OVER (PARTITION BY r.t, r.m) AS first_n
              FROM runs r
             ORDER BY r.t, r.m, r.mb DESC, r.n)
        -- each mode's lines under its heading, [Read] or [Write], as
        -- CrystalDiskMark prints them (a heading's row has no test)
        SELECT id, y.t, y.m, y.mb, y.io, y.a, y.p99, y.p5, y.mx, y.line
          FROM (SELECT x.first_n AS ord, 1 AS sub, x.t, x.m, x.mb, x.io, x.min_avg * 1000 AS a,
                       x.p99_ms * 1000 AS p99, x.p5 * 1000 AS p5, x.max_ms * 1000 AS mx,
                       ranread_internal.ranread_cdm_line(x.t, x.block_size, x.queue_depth, x.processes, x.io,
                                                         x.min_avg * 1000) AS line
                  FROM best x
                UNION ALL
                SELECT min(x.first_n), 0, NULL, x.m, NULL, NULL, NULL, NULL, NULL, NULL,
                       '[' || initcap(x.m) || ']'
                  FROM best x GROUP BY x.m) y
         ORDER BY y.ord, y.sub;
    ELSIF kind LIKE 'orion%' THEN
        RETURN QUERY
        SELECT id, format('Small=%s Large=%s', p.point ->> 'small', p.point ->> 'large'), 'point',
               p.large_mbps, p.small_iops, p.small_avg_ms * 1000, p.small_p99_ms * 1000,
               @extschema@.ranread_hist_percentile(sg.histogram, 99.999) * 1000, sg.max_ms * 1000,
               format('Small=%s Large=%s: %s IOPS, %s MBPS, %s usecs%s', p.point ->> 'small', p.point ->> 'large',
                      coalesce(to_char(p.small_iops, 'FM9999990'), '0'),
                      coalesce(to_char(p.large_mbps, 'FM999990.00'), '0.00'),
                      coalesce(to_char(p.small_avg_ms * 1000, 'FM99999990.00'), 'n/a'),
                      CASE WHEN p.status <> 'completed' THEN ' (' || p.status || ')' ELSE '' END)
          FROM ranread_internal.ranread_study_points_raw p
          LEFT JOIN @extschema@.ranread_groups sg ON sg.batch OPERATOR(pg_catalog.=) p.batch
                                                 AND sg.label OPERATOR(pg_catalog.=) 'small'
         WHERE p.study OPERATOR(pg_catalog.=) id
         ORDER BY p.n;
        RETURN QUERY
        SELECT id, s.item, 'summary', CASE WHEN s.unit = 'MiB/s' THEN s.value END,
               CASE WHEN s.unit = 'IOPS' THEN s.value END,
               CASE WHEN s.unit = 'usecs' THEN s.value END, NULL::float8, NULL::float8, NULL::float8, s.line
          FROM ranread_internal.ranread_study_summary_raw(id) s
         WHERE s.value IS NOT NULL;
    ELSE
        RETURN QUERY
        SELECT id,
               'RND ' || CASE WHEN g.block_size % 1024 = 0 THEN (g.block_size / 1024)::text
                              ELSE to_char(g.block_size / 1024.0, 'FM0.0') END || 'KiB',
               format('R/W %s/%s', 100 - g.write_pct, g.write_pct),
               b.mbps, b.iops, b.avg_ms * 1000, b.p99_ms * 1000,
               @extschema@.ranread_hist_percentile(b.histogram, 99.999) * 1000, b.max_ms * 1000,
               format('RND %sKiB R/W %s/%s QD1 T1: avg %s us, 99.999%% %s us, max %s us (%s IOPS)%s',
                      CASE WHEN g.block_size % 1024 = 0 THEN (g.block_size / 1024)::text
                           ELSE to_char(g.block_size / 1024.0, 'FM0.0') END,
                      100 - g.write_pct, g.write_pct,
                      coalesce(to_char(b.avg_ms * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(@extschema@.ranread_hist_percentile(b.histogram, 99.999) * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(b.max_ms * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(b.iops, 'FM9999990'), 'n/a'),
                      CASE WHEN b.status <> 'completed' THEN ' (' || b.status || ')' ELSE '' END)
          FROM @extschema@.ranread_batches b
          JOIN @extschema@.ranread_groups g ON g.batch OPERATOR(pg_catalog.=) b.batch
                                          AND g.grp OPERATOR(pg_catalog.=) 1
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point)
         ORDER BY ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647);
    END IF;
END
$$;

-- A profile's figures as a person reads them: MiB/s (mbps) to 0.1, IOPS
-- whole, latencies in us to 0.01, as the result lines print them.
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_report(study_id bigint)
RETURNS TABLE (study bigint, test text, mode text, mbps numeric, iops bigint,
               avg_us numeric, p99_us numeric, p99999_us numeric, max_us numeric, result text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.study, r.test, r.mode, ranread_internal.ranread_round(r.mbps, 1),
           ranread_internal.ranread_round(r.iops, 0)::bigint,
           ranread_internal.ranread_round(r.avg_us, 2), ranread_internal.ranread_round(r.p99_us, 2),
           ranread_internal.ranread_round(r.p99999_us, 2), ranread_internal.ranread_round(r.max_us, 2),
           r.result
      FROM ranread_internal.ranread_profile_report_raw(study_id) WITH ORDINALITY r
     ORDER BY r.ordinality
$$;

-- SVG: a profile as its tool would picture it: CrystalDiskMark's read and
-- write MB/s as bars per test (IOPS and latency in the table under them),
-- SNIA's average latency as bars per block size and mix (99.999% and
-- maximum in the table), ORION's curves (ranread_study_chart; a detailed
-- matrix as a heat table of small IOPS).
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_chart(study bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_profile_chart';
    id   constant bigint := study;
    kind text;
    spec jsonb;
BEGIN
    PERFORM ranread_internal.ranread_study_check(id, fn);
    SELECT coalesce(s.kind, 'study') INTO kind FROM @extschema@.ranread_studies s WHERE s.study OPERATOR(pg_catalog.=) id;
    IF kind IS NULL THEN
        SELECT CASE WHEN bool_or(b.point ? 'test') THEN 'crystaldiskmark' ELSE 'study' END INTO kind
          FROM @extschema@.ranread_batches b
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point);
    END IF;

    IF kind LIKE 'crystaldiskmark%' THEN
        WITH r AS (SELECT x.*, row_number() OVER () AS ord FROM ranread_internal.ranread_profile_report_raw(id) x
                    WHERE x.test IS NOT NULL),
             t AS (SELECT r.test, min(r.ord) AS ord FROM r GROUP BY r.test)
        SELECT jsonb_build_object(
                   'kind', 'bar',
                   'title', format('%s: MB/s by test, read and write', kind),
                   'subtitle', ranread_internal.ranread_study_caption(id),
                   'categories', (SELECT jsonb_agg(t.test ORDER BY t.ord) FROM t),
                   'x', jsonb_build_object('label', 'Test (block size, queue depth Q, threads T)'),
                   'y', jsonb_build_object('label', 'Throughput (MB/s, 10^6 bytes)', 'log', true),
                   'series', (SELECT jsonb_agg(jsonb_build_object(
                                  'label', initcap(m.mode), 'labels', true,
                                  'y', (SELECT jsonb_agg((SELECT round((r.iops * g.bs / 1e6)::numeric, 1)
                                                            FROM r, LATERAL (SELECT CASE WHEN r.test LIKE '%128K%' THEN 131072
                                                                                         WHEN r.test LIKE 'SEQ1M%' THEN 1048576
                                                                                         ELSE 4096 END AS bs) g
                                                           WHERE r.test = t.test AND r.mode = m.mode) ORDER BY t.ord)
                                          FROM t)) ORDER BY m.ord)
                                FROM (SELECT r.mode, min(r.ord) AS ord FROM r GROUP BY r.mode) m),
                   'table', jsonb_build_object(
                       'header', jsonb_build_array('Test', 'Mode', 'MB/s', 'IOPS', 'Latency (us)'),
                       'align', jsonb_build_array('left', 'left', 'right', 'right', 'right'),
                       'rows', (SELECT jsonb_agg(jsonb_build_array(r.test, r.mode,
                                        to_char(r.iops * (CASE WHEN r.test LIKE '%128K%' THEN 131072
                                                               WHEN r.test LIKE 'SEQ1M%' THEN 1048576 ELSE 4096 END) / 1e6,
                                                'FM999990.000'),
                                        ranread_internal.ranread_fmt_figure(r.iops),
                                        to_char(r.avg_us, 'FM9999990.00')) ORDER BY r.ord) FROM r)))
          INTO spec;
        RETURN @extschema@.ranread_svg(spec);
    ELSIF kind = 'snia-latency' THEN
        WITH r AS (SELECT x.*, row_number() OVER () AS ord FROM ranread_internal.ranread_profile_report_raw(id) x),
             t AS (SELECT r.test, min(r.ord) AS ord FROM r GROUP BY r.test),
             m AS (SELECT r.mode, min(r.ord) AS ord FROM r GROUP BY r.mode)
        SELECT jsonb_build_object(
                   'kind', 'bar',
                   'title', 'SNIA latency test: average latency by block size and read/write mix',
                   'subtitle', ranread_internal.ranread_study_caption(id),
                   'categories', (SELECT jsonb_agg(t.test ORDER BY t.ord) FROM t),
                   'x', jsonb_build_object('label', 'Random I/O, one thread, queue depth 1'),
                   'y', jsonb_build_object('label', 'Average latency (us)'),
                   'series', (SELECT jsonb_agg(jsonb_build_object(
                                  'label', m.mode, 'labels', true,
                                  'y', (SELECT jsonb_agg((SELECT round(r.avg_us::numeric, 1) FROM r
                                                           WHERE r.test = t.test AND r.mode = m.mode) ORDER BY t.ord)
                                          FROM t)) ORDER BY m.ord) FROM m),
                   'table', jsonb_build_object(
                       'header', jsonb_build_array('Test', 'Mix', 'IOPS', 'Average (us)', '99.999% (us)', 'Max (us)'),
                       'align', jsonb_build_array('left', 'left', 'right', 'right', 'right', 'right'),
                       'rows', (SELECT jsonb_agg(jsonb_build_array(r.test, r.mode, ranread_internal.ranread_fmt_figure(r.iops),
                                        ranread_internal.ranread_fmt_figure(r.avg_us), ranread_internal.ranread_fmt_figure(r.p99999_us),
                                        ranread_internal.ranread_fmt_figure(r.max_us)) ORDER BY r.ord) FROM r)))
          INTO spec;
        RETURN @extschema@.ranread_svg(spec);
    ELSIF kind = 'orion-normal' THEN
        RETURN @extschema@.ranread_study_heat(id, 'iops');
    END IF;
    RETURN @extschema@.ranread_study_chart(id);
END
$$;
