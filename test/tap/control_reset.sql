-- ranread_reset(before timestamptz DEFAULT NULL): deletes history, all of it
-- or the batches that started before `before`; their rows per process
-- (ranread_results) and per second (ranread_intervals) go with them; it
-- returns how many batches it removed.  It works in the caller's transaction.
--
-- The history here is made up inside this file's transaction (batch numbers
-- far above what the sequence hands out) and rolled back at the end.
BEGIN;
SELECT plan(29);

SELECT has_function('ranread_reset', ARRAY['timestamp with time zone'],
    'ranread_reset(before timestamptz) exists');
SELECT function_returns('ranread_reset', ARRAY['timestamp with time zone'], 'bigint',
    'ranread_reset returns bigint, the number of batches removed');

-- Start from no history, in this transaction only.
DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;

CREATE TEMP TABLE rr_fake (batch bigint, run_at timestamptz, finished_at timestamptz, status text);
INSERT INTO rr_fake VALUES
    (9100000000000001, '2020-01-01 00:00+00', '2020-01-01 00:01+00', 'completed'),
    -- started before 2020-01-03, finished after it
    (9100000000000002, '2020-01-02 00:00+00', '2020-01-05 00:00+00', 'stopped'),
    -- started exactly at 2020-01-03
    (9100000000000003, '2020-01-03 00:00+00', '2020-01-03 00:01+00', 'cancelled'),
    (9100000000000004, '2020-01-04 00:00+00', '2020-01-04 00:01+00', 'failed'),
    (9100000000000005, now() - interval '1 minute', now(), 'completed');

INSERT INTO ranread_batches (batch, run_at, finished_at, target, processes, block_size,
                             queue_depth, write_pct, pattern, region_start, region_end,
                             seed, workers, engine, reads, writes, status)
SELECT batch, run_at, finished_at, 'ranread', 2, 8192, 1, 0, 'random', 0, 100,
       42, 2, 'io_uring', 200, 0, status
  FROM rr_fake;
INSERT INTO ranread_results (batch, process, run_at, target, processes, block_size,
                             queue_depth, write_pct, pattern, reads, writes, seconds,
                             iops, histogram, status)
SELECT f.batch, p, f.run_at, 'ranread', 2, 8192, 1, 0, 'random', 100, 0, 1, 100,
       '\x00'::bytea, f.status
  FROM rr_fake f, generate_series(1, 2) p;
INSERT INTO ranread_intervals (batch, second, reads, writes, iops)
SELECT f.batch, s, 66, 0, 66
  FROM rr_fake f, generate_series(0, 2) s;

CREATE TEMP TABLE rr_targets_before AS SELECT * FROM ranread_target_catalog;

SELECT is(ranread_reset('2020-01-01 00:00+00'), 0::bigint,
    'ranread_reset(before) keeps a batch that started exactly at before');
SELECT is(ranread_reset('2020-01-03 00:00+00'), 2::bigint,
    'ranread_reset(before) removes the batches that started before it and returns how many');
SELECT results_eq(
    'SELECT batch FROM ranread_batches ORDER BY batch',
    ARRAY[9100000000000003, 9100000000000004, 9100000000000005]::bigint[],
    'the batches that started at or after before are kept (a batch that finished after before but started earlier is not)');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch IN (9100000000000001, 9100000000000002)), 0::bigint,
    'the removed batches'' rows per process are gone from ranread_results');
SELECT is((SELECT count(*) FROM ranread_intervals WHERE batch IN (9100000000000001, 9100000000000002)), 0::bigint,
    'the removed batches'' per-second rows are gone from ranread_intervals');
SELECT is((SELECT count(*) FROM ranread_results), 6::bigint,
    'the kept batches keep their rows per process');
SELECT is((SELECT count(*) FROM ranread_intervals), 9::bigint,
    'the kept batches keep their per-second rows');
SELECT results_eq(
    'SELECT batch, status FROM ranread_summary ORDER BY batch',
    $$VALUES (9100000000000003::bigint, 'cancelled'::text), (9100000000000004, 'failed'), (9100000000000005, 'completed')$$,
    'ranread_summary shows the kept batches, whatever their status');

SAVEPOINT before_reset;
SELECT is(ranread_reset(), 3::bigint, 'ranread_reset() counts every batch it removes');
ROLLBACK TO SAVEPOINT before_reset;
SELECT is((SELECT count(*) FROM ranread_batches), 3::bigint,
    'ranread_reset works in the caller''s transaction: rolling it back brings the history back');

SELECT is(ranread_reset(NULL), 3::bigint, 'ranread_reset(NULL) removes every batch, like ranread_reset()');
SELECT is_empty('SELECT * FROM ranread_batches', 'no batch is left');
SELECT is_empty('SELECT * FROM ranread_results', 'no row per process is left');
SELECT is_empty('SELECT * FROM ranread_intervals', 'no per-second row is left');
SELECT is_empty('SELECT * FROM ranread_summary', 'ranread_summary is empty');
SELECT is(ranread_reset(), 0::bigint, 'with no history ranread_reset() returns 0');

-- A batch a crash left 'running' while nothing runs is history like any other.
INSERT INTO ranread_batches (batch, run_at, target, processes, block_size, queue_depth,
                             write_pct, pattern, region_start, region_end, seed, workers,
                             engine, status)
VALUES (9100000000000006, now() - interval '1 hour', 'ranread', 1, 8192, 1, 0, 'random',
        0, 100, 42, 1, 'io_uring', 'running');
SELECT is(ranread_reset(), 1::bigint,
    'ranread_reset() also removes a batch a crash left ''running'' when no batch runs');
SELECT is_empty('SELECT * FROM ranread_batches', '... so that no history is left');

SELECT is(ranread_reset(now() + interval '1 day'), 0::bigint,
    'ranread_reset(before) on an empty history returns 0');
SELECT set_eq('SELECT * FROM ranread_target_catalog', 'SELECT * FROM rr_targets_before',
    'ranread_reset leaves the targets alone');

-- Studies go whole with their batches, like sweeps; fleets with their nodes
-- and seconds; named nodes are settings and stay.
INSERT INTO ranread_studies (study, kind, started_at, finished_at, target, call, definition,
                             planned, completed, skipped)
VALUES (71, 'study', now() - interval '2 days', now() - interval '1 hour', 'ranread', 'old', '{}', 2, 2, 0),
       (72, 'study', now() - interval '1 hour', now(), 'ranread', 'new', '{}', 1, 1, 0);
INSERT INTO ranread_batches (batch, run_at, target, processes, block_size, queue_depth,
                             write_pct, pattern, region_start, region_end, seed, workers,
                             engine, status, study)
VALUES (9100000000000010, now() - interval '2 days', 'ranread', 1, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 'completed', 71),
       (9100000000000011, now() - interval '1 hour', 'ranread', 1, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 'completed', 71),
       (9100000000000012, now() - interval '1 hour', 'ranread', 1, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 'completed', 72);
INSERT INTO ranread_fleets (fleet, started_at, definition, nodes, processes, status)
VALUES (81, now() - interval '2 days', '{}', 2, 1, 'completed'),
       (82, now() - interval '1 hour', '{}', 2, 1, 'completed');
INSERT INTO ranread_fleet_nodes (fleet, node, name, conninfo, status)
VALUES (81, 1, 'a', 'host=a', 'completed'), (82, 1, 'a', 'host=a', 'completed');
INSERT INTO ranread_nodes (name, conninfo) VALUES ('tap_reset_node', 'host=a');
SELECT is(ranread_reset(now() - interval '1 day'), 2::bigint,
    'ranread_reset(before) removes a study that started before, with all its batches (even a later one)');
SELECT is((SELECT array_agg(study ORDER BY study) FROM ranread_studies), ARRAY[72::bigint],
    '... and its row, keeping the later study');
SELECT is((SELECT array_agg(fleet ORDER BY fleet) FROM ranread_fleets), ARRAY[82::bigint],
    '... and a fleet that started before, keeping the later one');
SELECT is((SELECT array_agg(fleet ORDER BY fleet) FROM ranread_fleet_nodes), ARRAY[82::bigint],
    '... with its nodes');
SELECT is(ranread_reset(), 1::bigint, 'ranread_reset() removes everything else');
SELECT ok(NOT EXISTS (SELECT FROM ranread_studies) AND NOT EXISTS (SELECT FROM ranread_fleets),
    '... studies and fleets too');
SELECT is((SELECT count(*) FROM ranread_nodes WHERE name = 'tap_reset_node'), 1::bigint,
    '... but not the named nodes, which are settings');

SELECT * FROM finish();
ROLLBACK;
