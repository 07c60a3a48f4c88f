-- One workload definition: the option table (ranread_options) is what the
-- functions that run batches take by name, with its defaults; their
-- arguments reach the parser as one spec (ranread_internal.ranread_spec),
-- the null check of the options is one, and errors from inside a sweep
-- name the function called, not its internal steps.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(30);
\ir lib/util.psql

-- The table
SELECT ok((SELECT count(*) >= 18 FROM ranread_options() WHERE NOT internal),
    'ranread_options lists the workload''s options');
SELECT is((SELECT array_agg(a.name ORDER BY a.name)
             FROM (SELECT unnest(proargnames) AS name, unnest(proargtypes::oid[]) AS type
                     FROM pg_proc WHERE oid = 'ranread_run'::regproc) a
             LEFT JOIN ranread_options() o ON o.name = a.name AND o.type = a.type
            WHERE o.name IS NULL),
    NULL, 'every argument of ranread_run is an option of the table, of the same type');
SELECT is((SELECT count(*) FROM ranread_options() WHERE help IS NULL OR help = '' OR level NOT IN ('batch', 'group', 'batch or group')),
    0::bigint, 'every option has a level and a line of help');

-- Defaults live in the table: every signature that hands its options on
-- by name declares the table's default (or the function's own, listed here)
CREATE TEMP TABLE own_defaults (fn text, arg text, why text);
INSERT INTO own_defaults VALUES
    ('ranread_mix', 'duration', 'a mix runs for 30 s'),
    ('ranread_sweep', 'duration', 'each step runs for 30 s'),
    ('ranread_fleet_sweep', 'duration', 'each step runs for 30 s'),
    ('ranread_latency_target', 'duration', 'each window runs for 5 s'),
    ('ranread_latency_target', 'processes', 'the search sets it, or 1'),
    ('ranread_latency_target', 'queue_depth', 'the search sets it, or 1'),
    ('ranread_study', 'duration', 'each point runs for 10 s'),
    ('ranread_blocks', 'seed', 'the offsets shown repeat: seed 0'),
    ('ranread_probe', 'duration', 'a probe runs for 10 s'),
    ('ranread_probe', 'rate_iops', 'a probe is paced: 200 IOPS'),
    ('ranread_probe', 'io_priority', 'a probe yields to the server''s own I/O: best-effort:7');
CREATE FUNCTION pg_temp.arg_defaults() RETURNS TABLE (fn text, arg text, declared text, option_default text)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    d text;
BEGIN
    FOR r IN
        SELECT p.oid, p.proname::text AS fn, a.name, a.pos, o.default_value, o.type, p.pronargs, p.pronargdefaults
          FROM pg_proc p
          JOIN pg_depend dep ON dep.classid = 'pg_proc'::regclass AND dep.objid = p.oid AND dep.deptype = 'e'
          JOIN pg_extension e ON e.oid = dep.refobjid AND e.extname = 'ranread'
          CROSS JOIN LATERAL unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) WITH ORDINALITY a(name, type, pos)
          JOIN ranread_options() o ON o.name = a.name AND o.type = a.type
         WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
           -- the functions that take a workload: its C entry points
           AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
           AND p.prosrc IN ('ranread_run', 'ranread_run_1_1', 'ranread_mix', 'ranread_blocks', 'ranread_forward')
    LOOP
        d := pg_get_function_arg_default(r.oid, r.pos::integer);
        IF d IS NOT NULL THEN
            EXECUTE format('SELECT (%s)::text', d) INTO d;
        END IF;
        fn := r.fn; arg := r.name; declared := d;
        EXECUTE format('SELECT %L::%s::text', r.default_value, r.type) INTO option_default;
        RETURN NEXT;
    END LOOP;
END
$$;
SELECT is((SELECT string_agg(format('%s(%s) declares %s, the table %s', fn, arg, coalesce(declared, 'none'),
                                    coalesce(option_default, 'none')), '; ')
             FROM pg_temp.arg_defaults() x
            WHERE x.declared IS DISTINCT FROM x.option_default
              AND (x.fn, x.arg) NOT IN (SELECT o.fn, o.arg FROM own_defaults o)),
    NULL, 'no signature declares a default other than the option table''s, but its own listed choices');
SELECT ok((SELECT count(DISTINCT fn) >= 8 AND count(*) >= 60 FROM pg_temp.arg_defaults()),
    'the check reads the options of every function that takes them (ranread_run, mix, sweep, search, study, fleet, blocks)');

-- The spec: options given flat go where a spec has them
SELECT is(ranread_internal.ranread_spec('{"processes": 4, "block_size": 4096, "target": "t", "duration": "1s", "iterations": 5, "start": 10, "seed": null}'),
    '{"duration": "1s", "iterations": 5, "groups": [{"processes": 4, "block_size": 4096, "target": "t"}]}'::jsonb,
    'a group''s options go in its group, the batch''s at the top; nulls and other keys are left out');
SELECT is(ranread_internal.ranread_spec('{"processes": 8, "sweep": 3}',
                                        '{"caller": "ranread_sweep", "duration": "1s", "groups": [{"processes": 1, "block_size": 4096}]}'),
    '{"caller": "ranread_sweep", "duration": "1s", "sweep": 3, "groups": [{"processes": 8, "block_size": 4096}]}'::jsonb,
    'options change a spec: a sweep''s next step is the same workload at more processes');
SELECT is(ranread_internal.ranread_spec('{"groups": [{"processes": 1}], "target": "t", "iterations": 9}'),
    '{"groups": [{"processes": 1}], "target": "t", "iterations": 9}'::jsonb,
    'beside groups (a mix), the target and iterations are every group''s default, at the top');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_spec('{"groups": [{"processes": 1}], "block_size": 4096}')$$),
    '22023: the options of a group cannot stand beside the groups of a spec',
    'a group''s option beside groups is refused');
SELECT is(ranread_internal.ranread_defaults('group'),
    (SELECT jsonb_object_agg(name, CASE WHEN type IN ('integer'::regtype, 'double precision'::regtype)
                                        THEN to_jsonb(default_value::numeric)
                                        WHEN type = 'boolean'::regtype THEN to_jsonb(default_value::boolean)
                                        ELSE to_jsonb(default_value) END)
       FROM ranread_options() WHERE level IN ('group', 'batch or group') AND default_value IS NOT NULL),
    'a group''s defaults are the table''s');

-- The parser reads a spec without running it, naming the caller
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_spec_check('{"caller": "ranread_sweep", "groups": [{"processes": 1, "pattern": "zigzag"}]}', false)$$),
    '22023: unknown pattern "zigzag" for ranread_sweep', 'a spec''s errors name its caller');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_spec_check('{"groups": [{"processes": 1}], "blocksize": 1}', false)$$),
    '22023: unknown key "blocksize" in the spec of ranread_run_step', 'a key that is no option is refused');
SELECT is(pg_temp.hint_of($$SELECT ranread_internal.ranread_spec_check('{"groups": [{"processes": 1}], "blocksize": 1}', false)$$),
    'Its keys are iterations, target, duration, warmup, seed, workers, steady_state, start_at, io_priority, path, effective_io_concurrency, groups, sweep, study, point, fleet and caller.',
    'the hint lists the keys a spec takes, from the table');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_spec_check(ranread_internal.ranread_spec('{"processes": 2, "region_start": "NaN"}'), false)$$),
    '22023: region_start NaN and region_end 100 of ranread_run_step do not make a region',
    'a float that JSON has no number for (NaN) is read back as a float, and checked as ranread_run checks it');

-- The one null check: the option's help says what is allowed, and its default
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, queue_depth => NULL)$$),
    '22004: queue_depth of ranread_run must not be null', 'a NULL option with a default is refused, named');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_run(1, queue_depth => NULL)$$),
    'queue_depth is how many I/Os each process keeps in flight. Leave it out for its default, 1.',
    '... and the hint says what it is and its default');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_sweep(write_pct => NULL)$$),
    '22004: write_pct of ranread_sweep must not be null', 'the same check serves every function that takes the option');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_require('ranread_x', 'y', NULL::integer, 'y is a number.')$$),
    '22004: y of ranread_x must not be null', 'the PL/pgSQL functions'' null check says the same');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, warmup => NULL, target => 'tap_no_such_target')$$),
    '42704: ranread target "tap_no_such_target" does not exist', 'an option whose NULL means something (no warm-up) passes');

-- Errors from inside a sweep: the message names ranread_sweep, CONTEXT
-- shows none of its internal steps
CREATE FUNCTION pg_temp.context_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE c text;
BEGIN
    EXECUTE q;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS c = PG_EXCEPTION_CONTEXT;
    RETURN c;
END
$$;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_sweep(pattern => 'zigzag')$$),
    '22023: unknown pattern "zigzag" for ranread_sweep', 'a sweep''s option is refused naming ranread_sweep');
SELECT unalike(pg_temp.context_of($$SELECT * FROM ranread_sweep(pattern => 'zigzag')$$), '%ranread_internal%',
    '... with no internal step in its CONTEXT');
SELECT alike(pg_temp.context_of($$SELECT * FROM ranread_sweep(pattern => 'zigzag')$$), '%context_of%',
    '... which keeps the caller''s frames');

SELECT lives_ok($$SELECT ranread_setup('64MB')$$, 'a small target');

-- One option, one error: every function that takes an option by name
-- refuses a bad value of it with ranread_run's error (its own name in
-- place of ranread_run), because the value reaches the one parser
CREATE TEMP TABLE bad_values (opt text, val text);
INSERT INTO bad_values VALUES
    ('processes', '0'), ('iterations', '0'), ('target', 'tap_no_such_target'), ('duration', '1 ms'),
    ('block_size', '1000'), ('write_pct', '101'), ('queue_depth', '0'), ('pattern', 'zigzag'),
    ('region_start', '101'), ('region_end', '-1'), ('warmup', '-1 s'), ('rate_iops', '0'),
    ('workers', '0'), ('distribution', 'zipf:x'), ('steady_state', '10%'), ('sync', 'nope'),
    ('start_at', '2000-01-01 00:00:00+00');
CREATE TEMP TABLE base_args (fn text, args text);
INSERT INTO base_args VALUES
    ('ranread_run', 'processes => 1'), ('ranread_mix', 'groups => ''[{"processes": 1}]'''),
    ('ranread_sweep', 'start => 1'), ('ranread_latency_target', 'target_ms => 1'), ('ranread_study', NULL);
-- what a function sets itself
CREATE TEMP TABLE own_rules (fn text, opt text, why text);
INSERT INTO own_rules VALUES
    ('ranread_latency_target', 'queue_depth', 'the search sets the dimension it searches, the queue depth by default');
CREATE FUNCTION pg_temp.bad_call(fn text, opt text, val text, type regtype) RETURNS text LANGUAGE sql AS $$
    SELECT replace(pg_temp.error_of(format('SELECT * FROM %I(%s%I => %L::%s)', fn,
                   (SELECT CASE WHEN b.args IS NULL OR b.args LIKE opt || ' =>%' THEN '' ELSE b.args || ', ' END
                      FROM base_args b WHERE b.fn = bad_call.fn),
                   opt, val, type)), fn, 'F')
$$;
CREATE TEMP TABLE takes AS
SELECT b.fn, o.name AS opt, o.type
  FROM base_args b
  JOIN pg_proc p ON p.proname = b.fn
       AND p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
       AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
       AND p.prosrc <> 'ranread_run'                 -- 1.0's ranread_run: positional
  CROSS JOIN LATERAL unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) a(name, type)
  JOIN ranread_options() o ON o.name = a.name AND o.type = a.type;
SELECT is((SELECT string_agg(format('%s(%s => %L): %s, but ranread_run: %s', t.fn, t.opt, v.val,
                                    pg_temp.bad_call(t.fn, t.opt, v.val, t.type),
                                    pg_temp.bad_call('ranread_run', t.opt, v.val, t.type)), '; ')
             FROM takes t JOIN bad_values v ON v.opt = t.opt
            WHERE t.fn <> 'ranread_run'
              AND (t.fn, t.opt) NOT IN (SELECT r.fn, r.opt FROM own_rules r)
              AND pg_temp.bad_call(t.fn, t.opt, v.val, t.type)
                  IS DISTINCT FROM pg_temp.bad_call('ranread_run', t.opt, v.val, t.type)),
    NULL, 'mix, sweep, latency search and study refuse a bad option with ranread_run''s error');
SELECT is((SELECT string_agg(format('%s(%s => %L): %s', t.fn, t.opt, v.val, pg_temp.bad_call(t.fn, t.opt, v.val, t.type)), '; ')
             FROM takes t JOIN bad_values v ON v.opt = t.opt
            WHERE pg_temp.bad_call(t.fn, t.opt, v.val, t.type) NOT LIKE '%' || t.opt || '%'),
    NULL, '... an error that names the option');
SELECT ok((SELECT count(*) >= 40 AND count(DISTINCT t.fn) = 5 FROM takes t JOIN bad_values v USING (opt)),
    '... checked for every option each of them takes');

-- The recorded call spells out every argument: the defaults, and a NULL
-- where the signature's default is not NULL; it runs the same study again
CREATE TEMP TABLE st1 AS SELECT * FROM ranread_study(processes => '{1}', duration => '20ms', warmup => NULL, seed => 3);
SELECT is((SELECT call FROM ranread_studies WHERE study = (SELECT min(study) FROM st1)),
    'SELECT * FROM ranread_study(processes => ''{1}'', duration => ''00:00:00.02'', warmup => NULL, max_avg_ms => ''10'', early_end => ''false'', target => ''ranread'', small_size => ''8192'', large_size => ''1048576'', large_pattern => ''random'', seed => ''3'', verify => ''false'');',
    'a study records its call: every argument but the NULLs its signature defaults to');
SELECT is(pg_temp.error_of((SELECT call FROM ranread_studies WHERE study = (SELECT min(study) FROM st1))), NULL,
    'the recorded call runs');
SELECT is((SELECT array_agg(row(definition, call)::text ORDER BY study) FROM ranread_studies
             WHERE study >= (SELECT min(study) FROM st1)),
    (SELECT array_fill((SELECT row(definition, call)::text FROM ranread_studies WHERE study = (SELECT min(study) FROM st1)), ARRAY[2])),
    '... the same study again');

-- ranread_options is readable by pg_monitor
SELECT ok(has_function_privilege('pg_monitor', 'ranread_options()', 'EXECUTE'), 'pg_monitor may read the option table');

SELECT * FROM finish();
ROLLBACK;
