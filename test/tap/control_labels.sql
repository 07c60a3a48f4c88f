-- Labels are facts (docs/design.md, measurement rule 8): what
-- a batch records is what ran, and nothing claims what was not measured.
--  - the engine, one per batch: 'sync' when every worker had a single I/O
--    in flight (a plain pread is the cheaper way), 'io_uring' otherwise,
--    also for a worker of such a batch that drives a single process
--  - ranread.timing = off: no latency in the batch, its seconds or the
--    sweep's verdict; the sweep says latency was not measured
--  - ranread_reset(before) takes a sweep whole (its verdict and all its
--    batches) or leaves it whole
--  - errors of arguments passed through ranread_sweep name ranread_sweep
--  - a region is printed with the digits it was given
--  - the batch's tablespace, filesystem and timing mode are recorded
BEGIN;
SET client_min_messages = error;
SELECT plan(19);

\ir lib/runs.psql
\ir lib/util.psql

SELECT ok((SELECT size_bytes = 33554432 FROM ranread_setup('32MB', target => 'tap_labels')),
    'a 32MB target');

-- the engine that ran
-- setup: one process at queue depth 1
SELECT pg_temp.setup_run('one', $$1, 200, target => 'tap_labels'$$);
SELECT is((SELECT engine FROM pg_temp.summary('one')), 'sync',
    'one process at queue depth 1 ran with pread: the batch records sync');
-- setup: three processes on two workers
SELECT pg_temp.setup_run('three', $$3, 200, target => 'tap_labels', workers => 2$$);
SELECT is((SELECT engine FROM pg_temp.summary('three')), 'io_uring',
    'three processes on two workers: one worker had two, so both ran io_uring: the batch records io_uring');
-- setup: one process at queue depth 4
SELECT pg_temp.setup_run('qd', $$1, 200, target => 'tap_labels', queue_depth => 4$$);
SELECT is((SELECT engine FROM pg_temp.summary('qd')), 'io_uring', 'one process at queue depth 4 ran on io_uring');

-- where it read, and how
SELECT is((SELECT tablespace || '|' || filesystem || '|' || timing FROM pg_temp.summary('one')),
    'pg_default|ext4|true', 'the batch records its tablespace, the filesystem it read and that every I/O was timed');

-- timing off: nothing about latency is claimed
SET ranread.timing = off;
-- setup: a batch with ranread.timing = off
SELECT pg_temp.setup_run('untimed', $$2, 300, target => 'tap_labels'$$);
SELECT is((SELECT row(avg_ms, p99_ms, max_ms, busy)::text FROM pg_temp.summary('untimed')), '(,,,)',
    'with ranread.timing off the batch has no latency and no busy figure');
SELECT is((SELECT timing FROM pg_temp.summary('untimed')), false, '... and records timing off');
SELECT ok((SELECT notes FROM pg_temp.summary('untimed')) ~ 'latency was not measured',
    '... and its notes say latency was not measured');
SELECT is((SELECT count(*) FROM pg_temp.intervals('untimed') WHERE avg_ms IS NOT NULL OR max_ms IS NOT NULL), 0::bigint,
    '... and so do its seconds: no avg_ms or max_ms');
CREATE TEMP TABLE untimed_sweep AS
SELECT * FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.3s', target => 'tap_labels');
SELECT is((SELECT count(*) FROM untimed_sweep WHERE within_bound IS NOT NULL), 0::bigint,
    'a sweep with timing off does not say whether a step stayed within the latency bound');
RESET ranread.timing;
SELECT ok(EXISTS (SELECT FROM ranread_sweeps s JOIN ranread_batches b ON b.sweep = s.sweep
                   WHERE b.timing = false AND s.max_iops IS NULL),
    '... and records no verdict on the bound: no max IOPS within it');

-- ranread_reset(before) and sweeps
SAVEPOINT r;
UPDATE ranread_sweeps SET started_at = '2020-01-01 00:00+00'
 WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps);
UPDATE ranread_batches SET run_at = '2020-01-01 00:00+00'
 WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps) AND batch = (SELECT min(batch) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps));
UPDATE ranread_batches SET run_at = '2030-01-01 00:00+00'
 WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps) AND batch = (SELECT max(batch) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps));
CREATE TEMP TABLE swept AS SELECT max(sweep) AS sweep FROM ranread_sweeps;
SELECT ok(ranread_reset('2021-01-01 00:00+00') >= 2,
    'ranread_reset(before) with a sweep that started before it ...');
SELECT is((SELECT count(*) FROM ranread_batches WHERE sweep = (SELECT sweep FROM swept)), 0::bigint,
    '... removes every batch of that sweep, also one that started after before');
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep = (SELECT sweep FROM swept)), 0::bigint,
    '... together with its verdict');
ROLLBACK TO SAVEPOINT r;
SAVEPOINT r2;
UPDATE ranread_batches SET run_at = '2020-01-01 00:00+00'
 WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps);
SELECT is(ranread_reset('2021-01-01 00:00+00') >= 0, true, 'ranread_reset(before) with a sweep that started after before');
SELECT is((SELECT count(*) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps)), 2::bigint,
    '... keeps all its batches, also those that started before before, with its verdict');
ROLLBACK TO SAVEPOINT r2;

-- errors name the function the user called, and regions keep their digits
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_sweep(start => 1, max_processes => 1, pattern => 'zigzag', target => 'tap_labels')$$),
    '^22023: unknown pattern "zigzag" for ranread_sweep$', 'an argument ranread_sweep passes through is named as ranread_sweep''s');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_labels', block_size => 1048576, region_start => 99.9999999999)$$),
    'region 99\.9999999999%\.\.100%', 'a region is printed with the digits it was given (99.9999999999%, not 100%)');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, target => 'tap_labels', duration => '1 microsecond')$$),
    '^22023: duration of ranread_run must be at least 10 milliseconds', 'a duration too short for any I/O is refused, not completed with 0 reads');

SELECT ranread_purge('tap_labels');
SELECT * FROM finish();
ROLLBACK;
