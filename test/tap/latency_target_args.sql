-- ranread_latency_target's bad input: every argument checked, with its
-- value and what is allowed, before any window starts a worker.
BEGIN;
SELECT plan(21);
\ir lib/util.psql

CREATE TEMP TABLE before AS SELECT count(*) AS batches FROM ranread_batches;

SELECT throws_ok($$SELECT * FROM ranread_latency_target(NULL)$$, '22004',
    'target_ms of ranread_latency_target must not be null', 'target_ms NULL');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(0)$$, '22023',
    'invalid target_ms 0 for ranread_latency_target', 'target_ms 0');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(-1)$$, '22023',
    'invalid target_ms -1 for ranread_latency_target', 'target_ms below 0');
SELECT throws_ok($$SELECT * FROM ranread_latency_target('NaN')$$, '22023',
    'invalid target_ms NaN for ranread_latency_target', 'target_ms NaN');
SELECT throws_ok($$SELECT * FROM ranread_latency_target('Infinity')$$, '22023',
    'invalid target_ms Infinity for ranread_latency_target', 'target_ms infinite');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, NULL)$$, '22004',
    'percentile of ranread_latency_target must not be null', 'percentile NULL');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, 0)$$, '22023',
    'invalid percentile 0 for ranread_latency_target', 'percentile 0');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, 100)$$, '22023',
    'invalid percentile 100 for ranread_latency_target', 'percentile 100 (windows are judged whole)');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, 100.5)$$, '22023',
    'invalid percentile 100.5 for ranread_latency_target', 'percentile above 100');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, 'NaN')$$, '22023',
    'invalid percentile NaN for ranread_latency_target', 'percentile NaN');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_latency_target(1, 100)$$),
    'percentile must be greater than 0 and less than 100, such as 99 or 99.9; each window is judged whole, so for the slowest I/Os ask for 99.99.',
    'the hint says what percentile may be');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, dimension => 'iodepth')$$, '22023',
    'unknown dimension "iodepth" for ranread_latency_target', 'an unknown dimension');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, dimension => NULL)$$, '22004',
    'dimension of ranread_latency_target must not be null', 'dimension NULL');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, max_load => 0)$$, '22023',
    'invalid max_load 0 for ranread_latency_target', 'max_load 0');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, max_load => 1025)$$, '22023',
    'invalid max_load 1025 for ranread_latency_target', 'max_load above the queue depth limit');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, max_load => 1024, processes => 100)$$, '22023',
    'invalid max_load 1024 for ranread_latency_target with processes 100', 'more I/Os in flight than the limit');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, duration => '0s')$$, '22023',
    'duration of ranread_latency_target must be positive and at most 24 hours, not 00:00:00', 'duration 0');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, duration => NULL)$$, '22004',
    'duration of ranread_latency_target must not be null', 'duration NULL');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, target => 'tap_no_such_target')$$, '42704',
    'ranread target "tap_no_such_target" does not exist', 'an unknown target (ranread_run_step''s check)');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, pattern => 'zigzag', target => 'tap_no_such_target')$$,
    NULL, NULL, 'an unknown pattern');
SELECT is((SELECT count(*) FROM ranread_batches), (SELECT batches FROM before),
    'no bad call ran a batch');

SELECT * FROM finish();
ROLLBACK;
