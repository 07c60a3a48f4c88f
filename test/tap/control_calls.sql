-- The calls that run many batches while they run (sweeps, studies,
-- latency-target searches, fleets), and what ranread_run_step takes:
--  - a call registers the id it has just taken from its sequence, and only
--    that one; the entry lasts as long as the calling transaction
--  - ranread_run_step puts a batch into a sweep, study, search or fleet only
--    when that call runs in this session: another role's finished sweep,
--    study, search or fleet is refused with a clear error, before any I/O
--  - ranread_reset in the transaction that ran a call takes it whole
BEGIN;
SET client_min_messages = error;
SELECT plan(23);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_calls')), 'a 16MB target');
CREATE TEMP TABLE mark AS SELECT coalesce(max(batch), 0) AS batch FROM ranread_batches;

-- registering
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_call_register('study', 9100000000000077)$$),
    '22023: study 9100000000000077 is not the one this session took last from ranread_study_seq',
    'a call cannot register an id it did not take from its sequence');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_call_register('party', 1)$$),
    '22023: unknown kind "party" of call', 'an unknown kind is refused');
CREATE TEMP TABLE ids AS SELECT nextval('ranread_study_seq') AS study, nextval('ranread_sweep_seq') AS sweep,
                                nextval('ranread_latency_target_seq') AS search;
SELECT lives_ok($$SELECT ranread_internal.ranread_call_register('study', (SELECT study FROM ids))$$,
    'the id just taken from the sequence registers');
SELECT is(ranread_internal.ranread_call_running('study', (SELECT study FROM ids)), true, 'ranread_call_running says the study runs');
SELECT is(ranread_internal.ranread_call_running('study', (SELECT study FROM ids) - 1), false, '... and not the one before it');
SELECT is((SELECT pid FROM ranread_internal.ranread_running_calls() WHERE kind = 'study' AND id = (SELECT study FROM ids)),
    pg_backend_pid(), 'ranread_running_calls lists it with this session''s PID');

-- ranread_run_step and the ids it names
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('sweep', (SELECT sweep FROM ids) + 1000,
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    format('22023: sweep %s of ranread_run_step is not a sweep this session runs', (SELECT sweep FROM ids) + 1000),
    'a run step naming a sweep this session does not run is refused');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_run_step(jsonb_build_object('sweep', 1,
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    'Leave the key out to run the batch on its own.', '... with a hint');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('study', (SELECT study FROM ids) + 1000,
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    format('22023: study %s of ranread_run_step is not a study this session runs', (SELECT study FROM ids) + 1000),
    'a run step naming another study is refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('point', jsonb_build_object('latency_target', (SELECT search FROM ids)),
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    format('22023: latency_target %s of ranread_run_step is not a latency-target search this session runs', (SELECT search FROM ids)),
    'a run step whose point names a latency-target search this session does not run is refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('fleet', 5,
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    '22023: fleet 5 of ranread_run_step is not a fleet this session runs',
    'a run step naming a fleet outside the fleet''s own session is refused');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch > (SELECT batch FROM mark)), 0::bigint,
    'none of the refused steps ran a batch');

CREATE TEMP TABLE step AS
SELECT * FROM ranread_run_step(jsonb_build_object('study', (SELECT study FROM ids), 'caller', 'ranread_study',
                               'point', '{"n": 1, "processes": 1}'::jsonb,
                               'iterations', 20, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb));
SELECT is((SELECT study FROM ranread_batches WHERE batch = (SELECT batch FROM step WHERE grp = 0)), (SELECT study FROM ids),
    'a step of the study this session registered runs, and its batch carries the study');
SET LOCAL application_name = 'ranread_fleet 424242';
CREATE TEMP TABLE node AS
SELECT * FROM ranread_run_step(jsonb_build_object('fleet', 424242, 'start_at', clock_timestamp() + interval '300 ms',
                               'iterations', 20, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb));
SELECT is((SELECT fleet FROM ranread_batches WHERE batch = (SELECT batch FROM node WHERE grp = 0)), 424242::bigint,
    'a node takes a fleet id from the session its coordinator opened for that fleet, with the fleet''s start_at');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('fleet', 424243, 'start_at', clock_timestamp() + interval '300 ms',
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    '22023: fleet 424243 of ranread_run_step is not a fleet this session runs',
    '... and no other fleet''s');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step(jsonb_build_object('fleet', 424242,
                                'iterations', 10, 'target', 'tap_calls', 'groups', '[{"processes": 1}]'::jsonb))$$),
    '22023: fleet 424242 of ranread_run_step is not a fleet this session runs',
    '... and not without a start_at');
RESET application_name;

-- ranread_reset in the transaction that ran a call sees all the call wrote,
-- and takes it whole (another session's reset keeps it: 33_reset_running.sh)
CREATE TEMP TABLE other AS SELECT * FROM ranread_run(1, 20, target => 'tap_calls');
SELECT lives_ok($$SELECT ranread_reset()$$, 'ranread_reset runs in the transaction of a registered study');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch = (SELECT batch FROM step WHERE grp = 0)), 0::bigint,
    'it removes the study''s batch, which this transaction sees whole');
SELECT is((SELECT count(*) FROM ranread_groups WHERE batch = (SELECT batch FROM step WHERE grp = 0)), 0::bigint,
    '... with its rows');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch = (SELECT batch FROM other)), 0::bigint,
    'and a batch of no call');

-- one session cannot fill the room of the whole cluster: at most 16 calls
-- of one session at once
SELECT lives_ok($$SELECT count(ranread_internal.ranread_call_register('study', nextval('ranread_study_seq')))
                    FROM generate_series(1, 16 - (SELECT count(*) FROM ranread_internal.ranread_running_calls() WHERE pid = pg_backend_pid()))$$,
    'a session may run up to 16 calls in one transaction');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_call_register('study', nextval('ranread_study_seq'))$$),
    '53400: this session runs 16 sweeps, studies, searches and fleets already',
    '... and the 17th is refused, so one session cannot take the registry''s room from every other');

SELECT * FROM finish();
ROLLBACK;
