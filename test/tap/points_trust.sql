-- What a batch's point may say (src/workload/point.c, docs/design.md "What any role
-- may call"): a role granted 'run' calls ranread_run_step, whose point the
-- study views, the latency-target verdicts and the report read back.
--  - a point is a study's ({"n", coordinates}) or a search's window, every
--    key known, each value of its type and range: a point whose n is "x"
--    (which made ranread_report fail for every user) and a window whose
--    step is "x" (which broke ranread_latency_target_verdict) are refused
--    before the batch runs
--  - a coordinate that is an option is the batch's own
--  - a point of no study or search is refused
--  - the readers skip a row of 1.1 whose point nothing checked, and say so:
--    ranread_report, the study views and the verdicts still work for a
--    role granted 'report'
BEGIN;
SET LOCAL client_min_messages = error;
SELECT plan(23);
\ir lib/util.psql

SELECT lives_ok($$SELECT ranread_setup('16MB', target => 'tap_points')$$, 'a small target');
CREATE ROLE tap_points_run;
CREATE ROLE tap_points_report;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_points_run', 'run'))
          AND (SELECT count(*) > 0 FROM ranread_grant('tap_points_report', 'report')), 'a runner and a reader');
CREATE TEMP TABLE mark AS SELECT coalesce(max(batch), 0) AS batch FROM ranread_batches;
GRANT SELECT ON mark TO PUBLIC;

SET LOCAL ROLE tap_points_run;
CREATE TEMP TABLE ids AS SELECT nextval('ranread_study_seq') AS study, nextval('ranread_latency_target_seq') AS search;
GRANT SELECT ON ids TO PUBLIC;
SELECT ranread_internal.ranread_call_register('study', (SELECT study FROM ids));
SELECT ranread_internal.ranread_call_register('latency_target', (SELECT search FROM ids));
CREATE FUNCTION pg_temp.step(extra jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.error_of(format('SELECT * FROM ranread_run_step(%L)',
        jsonb_build_object('iterations', 10, 'target', 'tap_points', 'groups', '[{"processes": 1}]'::jsonb) || extra))
$$;

SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": "x"}'::jsonb)),
    '22023: invalid n x in the point of ranread_run_step',
    'a study point whose n is not a number is refused');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1.5}'::jsonb)),
    '22023: invalid n 1.5 in the point of ranread_run_step', '... and one whose n has a fraction');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1, "block_size": 1e30}'::jsonb)),
    '22023: invalid block_size 1000000000000000000000000000000 in the point of ranread_run_step',
    '... and a coordinate out of its option''s range');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1, "colour": "red"}'::jsonb)),
    '22023: unknown key "colour" in the point of ranread_run_step', '... and a key no study has');
SELECT alike(pg_temp.hint_of(format('SELECT * FROM ranread_run_step(%L)', jsonb_build_object('iterations', 10, 'target', 'tap_points',
                 'groups', '[{"processes": 1}]'::jsonb, 'study', (SELECT study FROM ids), 'point', '{"n": 1, "colour": "red"}'::jsonb))),
    'The point of a study takes n, processes, %', '... whose hint lists the keys');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"processes": 1}'::jsonb)),
    '22023: the point of ranread_run_step lacks n, the point''s number in its study', '... and a point without its number');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids))),
    format('22023: a batch of study %s of ranread_run_step needs its point', (SELECT study FROM ids)),
    '... and a batch of a study without a point');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1, "processes": 8}'::jsonb)),
    '22023: processes 8 of the point of ranread_run_step is not its batch''s: it runs 1',
    'a coordinate that says what the batch does not run is refused');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1, "mode": "write"}'::jsonb)),
    '22023: mode write of the point of ranread_run_step is not its batch''s: group "g1" writes 0%',
    '... and so is a profile''s mode');
SELECT is(pg_temp.step(jsonb_build_object('point', '{"n": 1}'::jsonb)),
    '22023: the point of ranread_run_step belongs to no study or latency-target search',
    'a point of no study or search is refused');

-- a window of a search
CREATE TEMP VIEW win AS SELECT jsonb_build_object('latency_target', (SELECT search FROM ids), 'step', 1, 'phase', 'search',
    'dimension', 'queue_depth', 'load', 1, 'target_ms', 5, 'percentile', 99, 'max_load', 4) AS w;
SELECT is(pg_temp.step(jsonb_build_object('point', (SELECT w FROM win) || '{"step": "x"}')),
    '22023: invalid step x in the point of ranread_run_step',
    'a window whose step is not a number is refused');
SELECT is(pg_temp.step(jsonb_build_object('point', (SELECT w FROM win) || '{"percentile": 100}')),
    '22023: invalid percentile 100 in the point of ranread_run_step', '... and one whose percentile is 100');
SELECT is(pg_temp.step(jsonb_build_object('point', (SELECT w FROM win) - 'max_load')),
    '22023: the point of ranread_run_step lacks max_load, which a window of a latency-target search has',
    '... and one without its max_load');
SELECT is(pg_temp.step(jsonb_build_object('point', (SELECT w FROM win) || '{"load": 3}')),
    '22023: load 3 of the point of ranread_run_step is not its batch''s: group "g1" runs 1',
    '... and one whose load is not the batch''s');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch > (SELECT batch FROM mark)), 0::bigint,
    'none of them ran a batch');
SELECT is(pg_temp.step(jsonb_build_object('study', (SELECT study FROM ids), 'point', '{"n": 1, "processes": 1, "region": "0-100"}'::jsonb)),
    NULL, 'a study point that says what its batch runs runs');
SELECT is(pg_temp.step(jsonb_build_object('point', (SELECT w FROM win))), NULL, '... and so does a window');
RESET ROLE;

-- rows of 1.1 that nothing checked, written here by hand: every reader
-- skips them and says so
INSERT INTO ranread_batches (batch, run_at, target, processes, seed, workers, engine, status, study, point, iops, avg_ms)
SELECT b.batch + 1000000, b.run_at, b.target, b.processes, b.seed, b.workers, b.engine, b.status, b.study,
       '{"n": "x", "processes": 1.5e400}', b.iops, b.avg_ms
  FROM ranread_batches b WHERE b.batch = (SELECT max(batch) FROM ranread_batches WHERE study IS NOT NULL);
INSERT INTO ranread_batches (batch, run_at, target, processes, seed, workers, engine, status, point)
SELECT b.batch + 1000000, b.run_at, b.target, b.processes, b.seed, b.workers, b.engine, b.status,
       b.point || '{"step": "x", "target_ms": "fast"}'
  FROM ranread_batches b WHERE b.batch = (SELECT max(batch) FROM ranread_batches WHERE point ? 'latency_target');
SET LOCAL ROLE tap_points_report;
SELECT is((SELECT count(*) FROM ranread_study_points WHERE study = (SELECT study FROM ids)), 1::bigint,
    'ranread_study_points skips a batch whose point is not a study''s');
SELECT is((SELECT stop_reason FROM ranread_study_overview WHERE study = (SELECT study FROM ids)),
    'skipped: 1 batch whose point is not a study''s',
    '... and ranread_study_overview says so');
SELECT alike((SELECT windows || ' ' || stop_reason FROM ranread_latency_target_verdict WHERE latency_target = (SELECT search FROM ids)),
    '1 %; skipped: 1 batch whose point is not a window of a search',
    'ranread_latency_target_verdict skips a batch that is not a window (one window left), and says so');
SELECT ok((SELECT ranread_report() LIKE '%<svg %'), 'ranread_report works for a reader');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
