-- A call that returns has ended (src/history/calls.c): its entry stays until the
-- transaction ends, but it no longer counts towards the 16 calls one
-- session runs at once, and no batch joins it any more:
--  - one transaction runs 17 sweeps (and more) one after another
--  - a run step naming a sweep that has returned is refused, and so is
--    registering its id again
--  - the calls of a subtransaction that rolled back have ended too
--  - ranread_call_end names only a call of this session
BEGIN;
SET client_min_messages = error;
SELECT plan(9);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_calls_end')), 'a 16MB target');

-- 17 sweeps, one after another, in one transaction
CREATE TEMP TABLE runs (k integer, sweep bigint, rows integer);
DO $$
DECLARE
    n integer;
BEGIN
    FOR k IN 1..17 LOOP
        SELECT count(*) INTO n FROM ranread_sweep(start => 1, max_processes => 1, iterations => 10, duration => NULL,
                                                  target => 'tap_calls_end');
        INSERT INTO pg_temp.runs VALUES (k, currval('ranread_sweep_seq'), n);
    END LOOP;
END
$$;
SELECT is((SELECT count(*) FROM runs WHERE rows = 1), 17::bigint,
    'one transaction runs 17 sweeps one after another: a call that returned no longer counts');
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep IN (SELECT sweep FROM runs)), 17::bigint,
    '... and each is recorded');

-- a sweep that returned takes no batch, and its id does not register again
SELECT is(pg_temp.error_of(format($$SELECT * FROM ranread_run_step(jsonb_build_object('sweep', %s,
                                'iterations', 10, 'target', 'tap_calls_end', 'groups', '[{"processes": 1}]'::jsonb))$$,
                                (SELECT max(sweep) FROM runs))),
    format('22023: sweep %s of ranread_run_step is not a sweep this session runs', (SELECT max(sweep) FROM runs)),
    'a run step naming a sweep of this session that has returned is refused');
SELECT is(pg_temp.error_of(format($$SELECT ranread_internal.ranread_call_register('sweep', %s)$$, (SELECT max(sweep) FROM runs))),
    format('55000: sweep %s of this session has ended', (SELECT max(sweep) FROM runs)),
    '... and so is registering its id again');

-- the calls of a subtransaction that rolled back have ended
SAVEPOINT many;
SELECT lives_ok($$SELECT count(ranread_internal.ranread_call_register('study', nextval('ranread_study_seq')))
                    FROM generate_series(1, 16)$$,
    '16 calls registered in a subtransaction');
ROLLBACK TO SAVEPOINT many;
SELECT is((SELECT count(*)::integer FROM ranread_sweep(start => 1, max_processes => 1, iterations => 10, duration => NULL,
                                                     target => 'tap_calls_end')), 1,
    '... which rolled back: they have ended, and a sweep runs');

SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_call_end('study', 9100000000000077)$$),
    '22023: study 9100000000000077 of ranread_call_end is not a call this session runs',
    'ranread_call_end names only a call of this session');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_call_end('sweep', NULL)$$),
    '22004: kind and id of ranread_call_end must not be null', '... and refuses NULL');

SELECT * FROM finish();
ROLLBACK;
