-- ranread_help(): the entry points by task, each with an example that
-- names it and parses against the installed functions; ranread_help(name):
-- one function's arguments, the workload options' defaults, units and
-- ranges taken from ranread_options() (the option table of src/workload/options.c),
-- the others' defaults from the function's own signature.  Every function
-- a user calls is listed (a new one that is not fails here), every listed
-- one exists, and an unknown name is an error that names the closest.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(23);
\ir lib/util.psql

CREATE TEMP TABLE help AS SELECT * FROM ranread_internal.ranread_help_table();

SELECT is(ARRAY(SELECT attname::text FROM pg_attribute
                 WHERE attrelid = 'help'::regclass AND attnum > 0 ORDER BY attnum),
          ARRAY['task', 'name', 'example', 'description'],
    'the help''s table (ranread_help() prints it as text) gives task, name, example and description');
SELECT is(ARRAY(SELECT DISTINCT task FROM help ORDER BY task),
          ARRAY['advice', 'commit path', 'compare', 'export', 'fleet', 'housekeeping', 'report', 'run', 'setup', 'study', 'watch'],
    'its tasks: setup, run, report, compare, study, fleet, watch, commit path, advice, export, housekeeping');
SELECT is((SELECT count(*)::integer FROM help WHERE coalesce(description, '') = '' OR coalesce(example, '') = ''), 0,
    'every entry has an example and a description');
SELECT is((SELECT count(*)::integer FROM (SELECT name FROM help GROUP BY name HAVING count(*) > 1) d), 0,
    'each name is listed once');

-- Every listed name exists in the extension's schema, and belongs to it
CREATE TEMP TABLE ext_names AS
SELECT p.proname::text AS name, 'function' AS kind, obj_description(p.oid, 'pg_proc') AS description
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE p.pronamespace = e.extnamespace
UNION
SELECT c.relname::text, 'relation', obj_description(c.oid, 'pg_class')
  FROM pg_class c
  JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE c.relnamespace = e.extnamespace AND c.relkind IN ('r', 'v');

SELECT is(ARRAY(SELECT name FROM help EXCEPT SELECT name FROM ext_names ORDER BY 1), '{}'::text[],
    'every function and view the help lists is one of the extension''s, in its schema');
SELECT is(ARRAY(SELECT name FROM ext_names WHERE kind = 'function' AND description NOT LIKE 'Internal:%'
                EXCEPT SELECT name FROM help ORDER BY 1), '{}'::text[],
    'every function of the extension''s schema a user calls (its comment does not begin "Internal:") is in the help');
SELECT is(ARRAY(SELECT name FROM ext_names WHERE kind = 'relation' EXCEPT SELECT name FROM help ORDER BY 1), '{}'::text[],
    'every table and view of the extension''s schema is in the help');
SELECT is(ARRAY(SELECT name FROM help WHERE position(name IN example) = 0 ORDER BY 1), '{}'::text[],
    'each example uses the function or view it stands for');

-- Every example is a statement the server accepts against the installed
-- functions (parsed and planned, not run); the role examples name alice
DO $$
BEGIN
    IF to_regrole('alice') IS NULL THEN
        CREATE ROLE alice;
    END IF;
END
$$;
CREATE FUNCTION pg_temp.example_errors() RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    r record;
    bad text[] := '{}';
BEGIN
    FOR r IN SELECT name, example FROM pg_temp.help LOOP
        BEGIN
            -- a procedure's CALL cannot be prepared: it must name a procedure
            IF r.example ~ '^CALL ' THEN
                IF NOT EXISTS (SELECT FROM pg_proc WHERE proname = r.name AND prokind = 'p') THEN
                    bad := bad || (r.name || ': CALL of something that is not a procedure');
                END IF;
                CONTINUE;
            END IF;
            EXECUTE format('PREPARE help_example AS %s', rtrim(r.example, ';'));
            DEALLOCATE help_example;
        EXCEPTION WHEN OTHERS THEN
            bad := bad || (r.name || ': ' || SQLERRM);
        END;
    END LOOP;
    RETURN bad;
END
$$;
SELECT is(pg_temp.example_errors(), '{}'::text[], 'every example parses against the installed functions');

-- One function's arguments
CREATE TEMP TABLE run_help AS SELECT * FROM ranread_internal.ranread_help_table('ranread_run');
SELECT is(ARRAY(SELECT argument FROM run_help),
          (SELECT proargnames[1:pronargs]::text[] FROM pg_proc
            WHERE oid = 'ranread_run'::regproc),
    'ranread_help_table(''ranread_run''), ranread_help(name)''s table, gives every argument of ranread_run, in order');
SELECT is((SELECT count(*)::integer FROM run_help h JOIN ranread_options() o ON o.name = h.argument
            WHERE h.unit IS NOT DISTINCT FROM o.unit AND h.allowed IS NOT DISTINCT FROM o.allowed AND h.description = o.help),
          (SELECT count(*)::integer FROM run_help),
    '... each with the unit, range and help of ranread_options()');
SELECT is((SELECT default_value || ' ' || unit FROM run_help WHERE argument = 'block_size'), '8192 bytes',
    '... and its default: block_size 8192 bytes');
SELECT is((SELECT default_value FROM run_help WHERE argument = 'processes'), '(required)',
    '... processes has no default');
SELECT is((SELECT default_value FROM run_help WHERE argument = 'rate_iops'),
          'NULL: ' || (SELECT null_means FROM ranread_options() WHERE name = 'rate_iops'),
    '... a NULL default says what NULL means');
SELECT is((SELECT default_value || ' ' || unit FROM ranread_internal.ranread_help_table('sweep') WHERE argument = 'max_avg_ms'), '10 ms',
    'a function''s own arguments: the default from its signature and their unit (ranread_help_table(''sweep'') finds ranread_sweep)');

SELECT is((SELECT l FROM ranread_help('sweep') l LIMIT 1) ~ '^ranread_sweep: ', true,
    'ranread_help(''sweep''), as text, finds ranread_sweep too');

-- A name as a person writes it: any case, spaces, quotes, schema, argument types
SELECT is(ARRAY(SELECT * FROM ranread_help('RANREAD_RUN')), ARRAY(SELECT * FROM ranread_help('ranread_run')),
    'ranread_help(''RANREAD_RUN'') is ranread_run''s help');
SELECT ok(bool_and(ARRAY(SELECT * FROM ranread_help(n)) = ARRAY(SELECT * FROM ranread_help('ranread_run'))),
    'and so is that of the name with spaces, quotes, its schema, its argument types, or without ranread_')
  FROM unnest(ARRAY['  ranread_run ', 'public.ranread_run', 'ranread_run(integer)', '"ranread_run"', 'Run']) n;

-- Names it does not know
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_help('a.b.ranread_run(')$$),
          '42883: invalid name for ranread_help: ''a.b.ranread_run(''',
    'a name it cannot read is named as given, not as read');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_help('ranread_rn')$$),
          '42883: invalid name for ranread_help: ''ranread_rn''',
    'an unknown name is an error naming the argument and the value');
SELECT alike(pg_temp.hint_of($$SELECT * FROM ranread_help('ranread_rn')$$), 'The closest are ranread_run,%',
    '... whose hint names the closest, ranread_run first');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_help('ranread_summary')$$),
          '42809: ranread_summary is a table or view, not a function: ranread_help shows a function''s arguments',
    'a view''s name says where its columns are explained');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_help(NULL)$$),
          '22004: name of ranread_help must not be null',
    'a NULL name is refused');

SELECT * FROM finish();
ROLLBACK;
