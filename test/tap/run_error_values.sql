-- Errors name a bad value without repeating a huge one: the parser and the
-- study print at most 64 bytes of a value (cut on a character boundary,
-- "..." marking the cut), so that a megabyte of input gives an error of a
-- line, in the client and in the server's log alike.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(12);
\ir lib/util.psql

SELECT lives_ok($$SELECT ranread_setup('16MB')$$, 'a small target');
CREATE TEMP TABLE big AS SELECT repeat('x', 1000000) AS s, repeat('é', 100) AS u;

SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run(1, pattern => %L)', (SELECT s FROM big))),
    '22023: unknown pattern "' || repeat('x', 64) || '..." for ranread_run',
    'a megabyte pattern: its first 64 bytes are shown');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run(1, distribution => %L)', (SELECT s FROM big))),
    '22023: invalid distribution "' || repeat('x', 64) || '..." for ranread_run', 'a distribution likewise');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run(1, sync => %L)', (SELECT s FROM big))),
    '22023: unknown sync "' || repeat('x', 64) || '..." for ranread_run', 'a sync method likewise');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run(1, steady_state => %L)', (SELECT s FROM big))),
    '22023: invalid steady_state "' || repeat('x', 64) || '..." for ranread_run', 'a steady_state likewise');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run(1, pattern => %L)', (SELECT u FROM big))),
    '22023: unknown pattern "' || repeat('é', 32) || '..." for ranread_run',
    'a value is cut between characters, not inside one');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, pattern => 'zigzag')$$),
    '22023: unknown pattern "zigzag" for ranread_run', 'a short value is shown whole');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"groups": [{"processes": 1}], "seed": 1e400}')$$),
    '22023: seed of ranread_run_step must be an integer, not 1' || repeat('0', 63) || '...',
    'a number of 400 digits in a spec: its first 64 are shown');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run_step(%L)',
                                  jsonb_build_object('groups', '[{"processes": 1}]'::jsonb, (SELECT s FROM big), 1))),
    '22023: unknown key "' || repeat('x', 64) || '..." in the spec of ranread_run_step', 'an unknown key of a spec likewise');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_run_step(%L)',
                                  jsonb_build_object('groups', jsonb_build_array(jsonb_build_object('processes', 1, (SELECT s FROM big), 1))))),
    '22023: unknown option "' || repeat('x', 64) || '..." in group "g1" of ranread_run_step', '... and of a group');

-- studies
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_study(processes => %L)',
                                  array_fill(1, ARRAY[100000]))),
    '22023: processes of ranread_study repeats 1', 'a study''s long dimension with a repeat: the value repeated, not the array');
SELECT is(pg_temp.error_of(format('SELECT * FROM ranread_study(region => %L)', ARRAY[(SELECT s FROM big)])),
    '22023: invalid region ''' || repeat('x', 64) || '...'' for ranread_study', 'a study''s huge region: its first 64 characters');

SELECT * FROM finish();
ROLLBACK;
