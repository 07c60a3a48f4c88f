-- The functions that record their steps while they run (a study's points,
-- a latency-target search's windows, a fleet sweep's steps) read them back
-- in the same call: a repeatable read snapshot could not see them, so each
-- refuses to start in one, and its hint says what it records.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL client_min_messages = warning;
SELECT plan(7);
\ir lib/util.psql

SELECT ok(ranread_setup('8MB', target => 'tap_read_committed') IS NOT NULL, 'a target to run on');
CREATE TEMP TABLE before AS SELECT count(*) AS batches FROM ranread_batches;

SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(processes => '{1}', duration => '0.1s', target => 'tap_read_committed')$$),
    '25000: ranread_study must run at the read committed isolation level, not repeatable read',
    'a study in a repeatable read transaction is refused');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_study(processes => '{1}', duration => '0.1s', target => 'tap_read_committed')$$),
    'Its points are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.',
    '... and the hint says its points are recorded while it runs');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_latency_target(1, duration => '0.1s', target => 'tap_read_committed')$$),
    'Each window''s histogram is written by its batch''s worker while the search runs, which a repeatable read snapshot cannot see; run the search outside an explicit transaction.',
    'a latency-target search''s hint says its windows are written while it runs');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], duration => '1s')$$),
    '25000: ranread_fleet_sweep must run at the read committed isolation level, not repeatable read',
    'a fleet sweep in a repeatable read transaction is refused');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], duration => '1s')$$),
    'Its steps are recorded while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.',
    '... and the hint says its steps are recorded while it runs');
SELECT is((SELECT count(*) FROM ranread_batches), (SELECT batches FROM before),
    'none of them ran a batch');

SELECT * FROM finish();
ROLLBACK;
